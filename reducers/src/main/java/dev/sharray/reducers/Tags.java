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

    private Tags() {
    }
}
