package dev.sharray.reducers;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * The {@code java.time} value classes, field by field; on read every field goes through the class's own factory,
 * so an invalid one (month 13, an offset past 18 hours, an unknown zone) is a {@link MalformedDataException}, not a
 * {@code DateTimeException} escaping the decoder.
 */
final class TimeValues {
    private static final int MAX_NANO = 999_999_999;

    private TimeValues() {
    }

    /** @return the handler for the java.time class of this binary name, or {@code null} */
    static Reducers.Handler handler(String name) {
        switch (name) {
            case "java.time.Instant":
                return (v, out) -> {
                    out.writeByte(Tags.INSTANT);
                    out.writeLong(((Instant) v).getEpochSecond());
                    out.writeInt(((Instant) v).getNano());
                };
            case "java.time.Duration":
                return (v, out) -> {
                    out.writeByte(Tags.DURATION);
                    out.writeLong(((Duration) v).getSeconds());
                    out.writeInt(((Duration) v).getNano());
                };
            case "java.time.LocalDate":
                return (v, out) -> {
                    out.writeByte(Tags.LOCAL_DATE);
                    writeDate((LocalDate) v, out);
                };
            case "java.time.LocalTime":
                return (v, out) -> {
                    out.writeByte(Tags.LOCAL_TIME);
                    writeTime((LocalTime) v, out);
                };
            case "java.time.LocalDateTime":
                return (v, out) -> {
                    out.writeByte(Tags.LOCAL_DATE_TIME);
                    writeDate(((LocalDateTime) v).toLocalDate(), out);
                    writeTime(((LocalDateTime) v).toLocalTime(), out);
                };
            case "java.time.OffsetTime":
                return (v, out) -> {
                    out.writeByte(Tags.OFFSET_TIME);
                    writeTime(((OffsetTime) v).toLocalTime(), out);
                    out.writeInt(((OffsetTime) v).getOffset().getTotalSeconds());
                };
            case "java.time.OffsetDateTime":
                return (v, out) -> {
                    final OffsetDateTime t = (OffsetDateTime) v;
                    out.writeByte(Tags.OFFSET_DATE_TIME);
                    writeDate(t.toLocalDate(), out);
                    writeTime(t.toLocalTime(), out);
                    out.writeInt(t.getOffset().getTotalSeconds());
                };
            case "java.time.ZonedDateTime":
                return (v, out) -> {
                    final ZonedDateTime t = (ZonedDateTime) v;
                    out.writeByte(Tags.ZONED_DATE_TIME);
                    writeDate(t.toLocalDate(), out);
                    writeTime(t.toLocalTime(), out);
                    out.writeInt(t.getOffset().getTotalSeconds());
                    out.writeString(t.getZone().getId());
                };
            case "java.time.ZoneOffset":
            case "java.time.ZoneRegion": // the class of ZoneId.of("Europe/Paris"), not public
                return (v, out) -> {
                    out.writeByte(Tags.ZONE_ID);
                    out.writeString(((ZoneId) v).getId());
                };
            case "java.time.Period":
                return (v, out) -> {
                    out.writeByte(Tags.PERIOD);
                    out.writeInt(((Period) v).getYears());
                    out.writeInt(((Period) v).getMonths());
                    out.writeInt(((Period) v).getDays());
                };
            case "java.time.Year":
                return (v, out) -> {
                    out.writeByte(Tags.YEAR);
                    out.writeInt(((Year) v).getValue());
                };
            case "java.time.YearMonth":
                return (v, out) -> {
                    out.writeByte(Tags.YEAR_MONTH);
                    out.writeInt(((YearMonth) v).getYear());
                    out.writeByte((byte) ((YearMonth) v).getMonthValue());
                };
            case "java.time.MonthDay":
                return (v, out) -> {
                    out.writeByte(Tags.MONTH_DAY);
                    out.writeByte((byte) ((MonthDay) v).getMonthValue());
                    out.writeByte((byte) ((MonthDay) v).getDayOfMonth());
                };
            default:
                return null;
        }
    }

    private static void writeDate(LocalDate d, ValueWriter out) {
        out.writeInt(d.getYear());
        out.writeByte((byte) d.getMonthValue());
        out.writeByte((byte) d.getDayOfMonth());
    }

    private static void writeTime(LocalTime t, ValueWriter out) {
        out.writeByte((byte) t.getHour());
        out.writeByte((byte) t.getMinute());
        out.writeByte((byte) t.getSecond());
        out.writeInt(t.getNano());
    }

    /** Reads a value of one of the java.time tags (tag already read). */
    static Object read(byte tag, ValueReader in) {
        final int at = in.position() - 1;
        try {
            return readFields(tag, in);
        } catch (DateTimeException e) {
            // the fields were read in full: only their values are wrong
            throw new MalformedDataException("invalid " + name(tag) + " at offset " + at + ": " + e.getMessage(), e);
        }
    }

    private static Object readFields(byte tag, ValueReader in) {
        switch (tag) {
            case Tags.INSTANT: {
                final long seconds = in.readLong();
                return Instant.ofEpochSecond(seconds, readNano(in));
            }
            case Tags.DURATION: {
                final long seconds = in.readLong();
                return Duration.ofSeconds(seconds, readNano(in)); // nanos in range: no overflow
            }
            case Tags.LOCAL_DATE:
                return readDate(in);
            case Tags.LOCAL_TIME:
                return readTime(in);
            case Tags.LOCAL_DATE_TIME: {
                final LocalDate date = readDate(in);
                return LocalDateTime.of(date, readTime(in));
            }
            case Tags.OFFSET_TIME: {
                final LocalTime time = readTime(in);
                return OffsetTime.of(time, ZoneOffset.ofTotalSeconds(in.readInt()));
            }
            case Tags.OFFSET_DATE_TIME: {
                final LocalDate date = readDate(in);
                final LocalTime time = readTime(in);
                return OffsetDateTime.of(date, time, ZoneOffset.ofTotalSeconds(in.readInt()));
            }
            case Tags.ZONED_DATE_TIME: {
                final LocalDate date = readDate(in);
                final LocalTime time = readTime(in);
                final ZoneOffset offset = ZoneOffset.ofTotalSeconds(in.readInt());
                final ZoneId zone = readZone(in);
                // strict: an offset the zone never has at that time is refused, not silently moved
                return ZonedDateTime.ofStrict(LocalDateTime.of(date, time), offset, zone);
            }
            case Tags.ZONE_ID:
                return readZone(in);
            case Tags.PERIOD: {
                final int years = in.readInt();
                final int months = in.readInt();
                return Period.of(years, months, in.readInt());
            }
            case Tags.YEAR:
                return Year.of(in.readInt());
            case Tags.YEAR_MONTH: {
                final int year = in.readInt();
                return YearMonth.of(year, in.readByte());
            }
            case Tags.MONTH_DAY: {
                final byte month = in.readByte();
                return MonthDay.of(month, in.readByte());
            }
            default:
                throw new MalformedDataException("not a java.time tag: " + tag);
        }
    }

    private static int readNano(ValueReader in) {
        final int nano = in.readInt();
        if (nano < 0 || nano > MAX_NANO) {
            // the factories would carry it into the seconds: not what any sender wrote
            throw new MalformedDataException("nano-of-second " + nano + " at offset " + (in.position() - 4)
                + " is outside 0.." + MAX_NANO);
        }
        return nano;
    }

    private static LocalDate readDate(ValueReader in) {
        final int year = in.readInt();
        final byte month = in.readByte();
        return LocalDate.of(year, month, in.readByte());
    }

    private static LocalTime readTime(ValueReader in) {
        final byte hour = in.readByte();
        final byte minute = in.readByte();
        final byte second = in.readByte();
        return LocalTime.of(hour, minute, second, in.readInt());
    }

    private static ZoneId readZone(ValueReader in) {
        final String id = in.readString();
        if (id == null) {
            throw new MalformedDataException("a null zone id");
        }
        return ZoneId.of(id); // a malformed or unknown id: DateTimeException, turned into MalformedDataException
    }

    private static String name(byte tag) {
        switch (tag) {
            case Tags.INSTANT: return "Instant";
            case Tags.DURATION: return "Duration";
            case Tags.LOCAL_DATE: return "LocalDate";
            case Tags.LOCAL_TIME: return "LocalTime";
            case Tags.LOCAL_DATE_TIME: return "LocalDateTime";
            case Tags.OFFSET_TIME: return "OffsetTime";
            case Tags.OFFSET_DATE_TIME: return "OffsetDateTime";
            case Tags.ZONED_DATE_TIME: return "ZonedDateTime";
            case Tags.ZONE_ID: return "ZoneId";
            case Tags.PERIOD: return "Period";
            case Tags.YEAR: return "Year";
            case Tags.YEAR_MONTH: return "YearMonth";
            default: return "MonthDay";
        }
    }
}
