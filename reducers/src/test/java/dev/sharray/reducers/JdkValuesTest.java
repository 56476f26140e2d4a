package dev.sharray.reducers;

import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.UUID;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Optional}, {@code UUID}, {@code BigInteger}, {@code BigDecimal} and the {@code java.time} values cross as
 * themselves. Before, each was refused on write: "no reducer for java.time.LocalDate".
 */
class JdkValuesTest {
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    /** The values a record built from rows of a database or a log would hold. */
    record Event(UUID id, Instant at, Duration took, LocalDate day, LocalTime time, LocalDateTime local,
                 OffsetDateTime offset, ZonedDateTime zoned, ZoneId zone, Period period, Optional<String> note,
                 OptionalInt count, OptionalDouble score, BigInteger big, BigDecimal amount, YearMonth month) { }

    private static Event event() {
        return new Event(new UUID(1, 2), Instant.ofEpochSecond(1_700_000_000L, 123), Duration.ofMillis(1500),
            LocalDate.of(2024, 2, 29), LocalTime.of(23, 59, 59, 999_999_999), LocalDateTime.of(2026, 12, 4, 5, 30),
            OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(-5)), ZonedDateTime.of(2026, 7, 1, 12, 0, 0, 0, PARIS),
            PARIS, Period.of(1, 2, 3), Optional.of("note"), OptionalInt.of(7), OptionalDouble.empty(),
            BigInteger.TWO.pow(100), new BigDecimal("12.50"), YearMonth.of(2026, 12));
    }

    private static List<Object> values() {
        final ZonedDateTime overlap = ZonedDateTime.of(2026, 10, 25, 2, 30, 0, 0, PARIS); // the hour that repeats
        return List.of(
            Optional.empty(), Optional.of("x"), Optional.of(List.of(1, 2)), Optional.of(Optional.of(3)),
            OptionalInt.empty(), OptionalInt.of(Integer.MIN_VALUE), OptionalLong.empty(), OptionalLong.of(-1L),
            OptionalDouble.empty(), OptionalDouble.of(Double.NaN), OptionalDouble.of(-0.0),
            new UUID(0, 0), new UUID(-1, Long.MIN_VALUE), UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
            BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.negate(), BigInteger.TWO.pow(64), BigInteger.TWO.pow(200).negate(),
            new BigInteger(10_000, new Random(3)),
            BigDecimal.ZERO, new BigDecimal("1.10"), new BigDecimal("-1E+5"), new BigDecimal("0.000"),
            new BigDecimal(BigInteger.TWO.pow(300), Integer.MIN_VALUE), new BigDecimal(BigInteger.TEN, Integer.MAX_VALUE),
            Instant.EPOCH, Instant.MIN, Instant.MAX, Instant.ofEpochSecond(-1, 999_999_999),
            Duration.ZERO, Duration.ofNanos(-1), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Duration.ofSeconds(Long.MIN_VALUE),
            LocalDate.MIN, LocalDate.MAX, LocalDate.EPOCH, LocalDate.of(2024, 2, 29),
            LocalTime.MIN, LocalTime.MAX, LocalTime.NOON,
            LocalDateTime.MIN, LocalDateTime.MAX, LocalDateTime.of(1969, 12, 31, 23, 59, 59, 1),
            OffsetTime.MIN, OffsetTime.MAX, OffsetTime.of(LocalTime.of(1, 2), ZoneOffset.ofHoursMinutesSeconds(5, 30, 15)),
            OffsetDateTime.MIN, OffsetDateTime.MAX,
            overlap.withEarlierOffsetAtOverlap(), overlap.withLaterOffsetAtOverlap(),
            ZonedDateTime.of(LocalDateTime.of(2026, 1, 1, 0, 0), ZoneOffset.ofHours(3)),
            ZonedDateTime.of(LocalDateTime.of(2026, 1, 1, 0, 0), ZoneId.of("UTC")),
            ZonedDateTime.of(LocalDateTime.of(2026, 1, 1, 0, 0), ZoneId.of("GMT+01:00")),
            PARIS, ZoneId.of("UTC"), ZoneId.of("UTC+01:30"), ZoneOffset.UTC, ZoneOffset.MIN, ZoneOffset.ofTotalSeconds(3661),
            Period.ZERO, Period.of(Integer.MIN_VALUE, -2, Integer.MAX_VALUE),
            Year.of(Year.MIN_VALUE), Year.of(2026), Year.of(Year.MAX_VALUE),
            YearMonth.of(-5, 1), YearMonth.of(2026, 12), MonthDay.of(2, 29), MonthDay.of(12, 31));
    }

    @Test
    void eachValueCrossesAsItselfWithItsOwnClass() {
        final Reducers r = Reducers.defaults();
        for (Object v : values()) {
            final Object back = r.fromBytes(r.toBytes(v));
            assertEquals(v, back, v.getClass().getSimpleName() + " " + v);
            assertSame(v.getClass(), back.getClass(), String.valueOf(v));
        }
        // BigDecimal's equals holds its scale, and 1.10 is not 1.1
        assertEquals(2, ((BigDecimal) r.fromBytes(r.toBytes(new BigDecimal("1.10")))).scale());
        // of the hour that repeats, the later instant stays the later one
        final ZonedDateTime later = ZonedDateTime.of(2026, 10, 25, 2, 30, 0, 0, PARIS).withLaterOffsetAtOverlap();
        assertEquals(later.toInstant(), ((ZonedDateTime) r.fromBytes(r.toBytes(later))).toInstant());
    }

    @Test
    void theyCrossInsideRecordsCollectionsAndArrays() {
        final Reducers r = Reducers.defaults();
        final Event e = event();
        final Event back = (Event) r.fromBytes(r.toBytes(e));
        assertEquals(e, back);
        assertNotSame(e, back);
        final Map<Object, Object> map = new LinkedHashMap<>();
        for (Object v : values()) {
            map.put(v, List.of(v));
        }
        assertEquals(map, r.fromBytes(r.toBytes(map)));
        final LocalDate[] days = {LocalDate.of(2026, 1, 1), null, LocalDate.MAX};
        assertArrayEquals(days, (LocalDate[]) r.fromBytes(r.toBytes(days)));
        final Object[] mixed = values().toArray();
        assertArrayEquals(mixed, (Object[]) r.fromBytes(r.toBytes(mixed)));
    }

    /** A user's own reducer for one of these classes keeps its precedence over the built-in handling. */
    public static final class DayNumber implements Reducer<LocalDate> {
        @Override
        public Class<LocalDate> type() {
            return LocalDate.class;
        }

        @Override
        public void write(LocalDate value, ValueWriter out) {
            out.writeLong(value.toEpochDay());
        }

        @Override
        public LocalDate read(ValueReader in) {
            return LocalDate.ofEpochDay(in.readLong());
        }
    }

    @Test
    void aRegisteredReducerForOneOfThemStillWins() {
        final Reducers r = Reducers.defaults().with(new DayNumber());
        final byte[] bytes = r.toBytes(LocalDate.of(2026, 12, 4));
        assertEquals(Tags.USER, bytes[0]);
        assertEquals(LocalDate.of(2026, 12, 4), r.fromBytes(bytes));
    }

    /** A message of {@code tag} whose body {@code body} writes. */
    private static byte[] message(byte tag, Consumer<ValueWriter> body) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(tag);
        body.accept(w);
        return Arrays.copyOf(buffer.byteArray(), w.position());
    }

    private static Consumer<ValueWriter> date(int year, int month, int day) {
        return w -> {
            w.writeInt(year);
            w.writeByte((byte) month);
            w.writeByte((byte) day);
        };
    }

    private static Consumer<ValueWriter> time(int hour, int minute, int second, int nano) {
        return w -> {
            w.writeByte((byte) hour);
            w.writeByte((byte) minute);
            w.writeByte((byte) second);
            w.writeInt(nano);
        };
    }

    private static String refusal(byte[] message) {
        return assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(message)).getMessage();
    }

    @Test
    void invalidFieldsAreMalformedDataNotADateTimeException() {
        assertTrue(refusal(message(Tags.LOCAL_DATE, date(2026, 13, 1))).startsWith("invalid LocalDate at offset 0: "));
        assertTrue(refusal(message(Tags.LOCAL_DATE, date(2026, 2, 30))).contains("FEBRUARY 30"));
        assertTrue(refusal(message(Tags.LOCAL_DATE, date(Integer.MAX_VALUE, 1, 1))).startsWith("invalid LocalDate"));
        assertTrue(refusal(message(Tags.LOCAL_TIME, time(24, 0, 0, 0))).startsWith("invalid LocalTime"));
        assertTrue(refusal(message(Tags.LOCAL_TIME, time(0, 0, 0, -1))).startsWith("invalid LocalTime"));
        assertTrue(refusal(message(Tags.LOCAL_DATE_TIME, date(2026, 1, 1).andThen(time(0, 60, 0, 0))))
            .startsWith("invalid LocalDateTime"));
        assertTrue(refusal(message(Tags.INSTANT, w -> {
            w.writeLong(0);
            w.writeInt(1_000_000_000);
        })).contains("nano-of-second 1000000000"));
        assertTrue(refusal(message(Tags.INSTANT, w -> {
            w.writeLong(Long.MAX_VALUE);
            w.writeInt(0);
        })).startsWith("invalid Instant"));
        assertTrue(refusal(message(Tags.DURATION, w -> {
            w.writeLong(Long.MAX_VALUE);
            w.writeInt(-1);
        })).contains("nano-of-second -1"));
        final Consumer<ValueWriter> noon = date(2026, 1, 1).andThen(time(12, 0, 0, 0));
        assertTrue(refusal(message(Tags.OFFSET_TIME, time(1, 0, 0, 0).andThen(w -> w.writeInt(19 * 3600))))
            .startsWith("invalid OffsetTime"));
        assertTrue(refusal(message(Tags.OFFSET_DATE_TIME, noon.andThen(w -> w.writeInt(-19 * 3600))))
            .startsWith("invalid OffsetDateTime"));
        // Paris is at +01:00 in January: +05:00 is an offset it never had then
        assertTrue(refusal(message(Tags.ZONED_DATE_TIME, noon.andThen(w -> {
            w.writeInt(5 * 3600);
            w.writeString("Europe/Paris");
        }))).startsWith("invalid ZonedDateTime"));
        for (String zone : new String[] {"Nowhere/Atlantis", "", "!!", "+25:00", "../../etc/passwd"}) {
            assertTrue(refusal(message(Tags.ZONE_ID, w -> w.writeString(zone))).startsWith("invalid ZoneId"), zone);
        }
        assertEquals("a null zone id", refusal(message(Tags.ZONE_ID, w -> w.writeString(null))));
        assertTrue(refusal(message(Tags.YEAR, w -> w.writeInt(Year.MAX_VALUE + 1))).startsWith("invalid Year"));
        assertTrue(refusal(message(Tags.YEAR_MONTH, w -> {
            w.writeInt(2026);
            w.writeByte((byte) 0);
        })).startsWith("invalid YearMonth"));
        assertTrue(refusal(message(Tags.MONTH_DAY, w -> {
            w.writeByte((byte) 4);
            w.writeByte((byte) 31);
        })).startsWith("invalid MonthDay"));
        for (byte tag : new byte[] {Tags.OPTIONAL_INT, Tags.OPTIONAL_LONG, Tags.OPTIONAL_DOUBLE}) {
            assertTrue(refusal(message(tag, w -> w.writeByte((byte) 2))).startsWith("boolean byte must be 0 or 1"));
        }
    }

    @Test
    void hugeOrMissingLengthsAreRefusedBeforeAllocating() {
        // a BigInteger's length is checked against the bytes present before its array is allocated
        assertTrue(refusal(message(Tags.BIG_INTEGER, w -> w.writeInt(Integer.MAX_VALUE))).contains("does not fit"));
        assertTrue(refusal(message(Tags.BIG_INTEGER, w -> w.writeInt(-5))).contains("does not fit"));
        assertTrue(refusal(message(Tags.BIG_INTEGER, w -> w.writeInt(0))).contains("a BigInteger of no bytes"));
        assertTrue(refusal(message(Tags.BIG_DECIMAL, w -> {
            w.writeInt(2);
            w.writeInt(Integer.MAX_VALUE - 3);
            w.writeByte((byte) 1);
        })).contains("does not fit"));
        assertTrue(refusal(message(Tags.ZONE_ID, w -> w.writeInt(Integer.MAX_VALUE))).contains("truncated"));
        // every truncation of every value
        for (Object v : values()) {
            final byte[] good = Reducers.defaults().toBytes(v);
            for (int n = 0; n < good.length; n++) {
                final byte[] cut = Arrays.copyOf(good, n);
                assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(cut), n + " bytes of " + v);
            }
        }
    }

    @Test
    void randomDamageOnlyEverGivesMalformedData() {
        final byte[] good = Reducers.defaults().toBytes(event());
        final Random random = new Random(5);
        for (int i = 0; i < 5000; i++) {
            final byte[] bad = good.clone();
            for (int f = 1 + random.nextInt(3); f > 0; f--) {
                bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
            }
            try {
                Reducers.defaults().fromBytes(bad);
            } catch (MalformedDataException expected) {
                // the only acceptable failure
            }
        }
    }
}
