package dev.sharray.reducers;

/** The one-byte tags that start every encoded value. Values are part of the wire format: never renumber. */
final class Tags {
    static final byte NULL = 0;
    static final byte TRUE = 1;
    static final byte FALSE = 2;
    static final byte BYTE = 3;
    static final byte SHORT = 4;
    static final byte CHAR = 5;
    static final byte INT = 6;
    static final byte LONG = 7;
    static final byte FLOAT = 8;
    static final byte DOUBLE = 9;
    static final byte STRING = 10;
    static final byte ENUM = 11;
    static final byte RECORD = 12;
    static final byte LIST = 13;
    static final byte SET = 14;
    static final byte MAP = 15;
    static final byte BOOLEAN_ARRAY = 16;
    static final byte BYTE_ARRAY = 17;
    static final byte SHORT_ARRAY = 18;
    static final byte CHAR_ARRAY = 19;
    static final byte INT_ARRAY = 20;
    static final byte LONG_ARRAY = 21;
    static final byte FLOAT_ARRAY = 22;
    static final byte DOUBLE_ARRAY = 23;
    /** A primitive array above maxBytes, shared as a descriptor and copied back to the heap on read. */
    static final byte SHARED_PRIMITIVE_ARRAY = 24;
    /** A SharedArray (any view), as its descriptor. */
    static final byte SHARED_ARRAY = 25;
    /** A HeapArray written inline: dtype, shape, data. */
    static final byte HEAP_ARRAY = 26;
    /** A HeapArray above maxBytes, shared as a descriptor and copied back to the heap on read. */
    static final byte SHARED_HEAP_ARRAY = 27;
    /** A value written by a registered {@link Reducer}: its id, then its own bytes. */
    static final byte USER = 28;
    /**
     * An array of references ({@code String[]}, {@code double[][]}, {@code Object[]}, ...): its component class's
     * binary name, its length, then each element as a tagged value.
     */
    static final byte OBJECT_ARRAY = 29;
    /** {@code Optional}: the value, or NULL for empty. */
    static final byte OPTIONAL = 30;
    /** {@code OptionalInt}: a presence byte (0/1), then the int when present. */
    static final byte OPTIONAL_INT = 31;
    /** {@code OptionalLong}: a presence byte, then the long when present. */
    static final byte OPTIONAL_LONG = 32;
    /** {@code OptionalDouble}: a presence byte, then the double when present. */
    static final byte OPTIONAL_DOUBLE = 33;
    /** {@code UUID}: most then least significant long. */
    static final byte UUID = 34;
    /** {@code BigInteger}: its two's-complement big-endian bytes (toByteArray), length-prefixed. */
    static final byte BIG_INTEGER = 35;
    /** {@code BigDecimal}: the int scale, then the unscaled value as BIG_INTEGER's body. */
    static final byte BIG_DECIMAL = 36;
    /** {@code Instant}: long epoch second, int nano (0..999,999,999). */
    static final byte INSTANT = 37;
    /** {@code Duration}: long seconds, int nano (0..999,999,999). */
    static final byte DURATION = 38;
    /** {@code LocalDate}: int year, byte month, byte day. */
    static final byte LOCAL_DATE = 39;
    /** {@code LocalTime}: byte hour, byte minute, byte second, int nano. */
    static final byte LOCAL_TIME = 40;
    /** {@code LocalDateTime}: LOCAL_DATE's body, then LOCAL_TIME's. */
    static final byte LOCAL_DATE_TIME = 41;
    /** {@code OffsetTime}: LOCAL_TIME's body, then the int offset in seconds. */
    static final byte OFFSET_TIME = 42;
    /** {@code OffsetDateTime}: LOCAL_DATE_TIME's body, then the int offset in seconds. */
    static final byte OFFSET_DATE_TIME = 43;
    /** {@code ZonedDateTime}: OFFSET_DATE_TIME's body, then the zone id as a string. */
    static final byte ZONED_DATE_TIME = 44;
    /** {@code ZoneId} (a region or a {@code ZoneOffset}): its id as a string. */
    static final byte ZONE_ID = 45;
    /** {@code Period}: int years, months, days. */
    static final byte PERIOD = 46;
    /** {@code Year}: int year. */
    static final byte YEAR = 47;
    /** {@code YearMonth}: int year, byte month. */
    static final byte YEAR_MONTH = 48;
    /** {@code MonthDay}: byte month, byte day. */
    static final byte MONTH_DAY = 49;
    /** {@code Path} of the default file system (any class implementing it): its string, rebuilt with Path.of. */
    static final byte PATH = 50;
    /** {@code File} (that class only): its path string. */
    static final byte FILE = 51;
    /** {@code URI}: its string. */
    static final byte URI = 52;
    /**
     * {@code Locale}: a form byte, then for form 0 its language tag (toLanguageTag), for form 1 (a locale BCP 47
     * cannot spell, such as {@code no_NO_NY}) its language, country and variant strings.
     */
    static final byte LOCALE = 53;
    /** {@code java.util.Date} (that class only): long epoch millis. */
    static final byte DATE = 54;

    private Tags() {
    }
}
