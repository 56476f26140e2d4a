package dev.sharray.reducers;

import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads values in the reducers' wire format from a buffer, checking every length against the bytes
 * that are really there: truncated, oversized or otherwise hostile input gives a
 * {@link MalformedDataException}, never an out-of-memory error, a JVM crash or a half-built value.
 *
 * <p>Reusable through {@link #wrap}; not thread-safe.
 */
public final class ValueReader {
    private final Reducers reducers;
    private DirectBuffer buffer;
    private int position;
    private int limit;
    private int depth;
    private ArrayOpening opening;

    /**
     * @param reducers the registry that rebuilds nested values
     */
    public ValueReader(Reducers reducers) {
        this.reducers = reducers;
    }

    /**
     * Points this reader at {@code length} bytes of {@code buffer} from {@code offset}.
     *
     * @param buffer  the source
     * @param offset  first byte
     * @param length  number of readable bytes
     * @param opening how descriptors are opened; {@code null} refuses shared arrays
     * @return this reader
     */
    public ValueReader wrap(DirectBuffer buffer, int offset, int length, ArrayOpening opening) {
        if (offset < 0 || length < 0 || (long) offset + length > buffer.capacity()) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " outside buffer of " + buffer.capacity());
        }
        this.buffer = buffer;
        this.position = offset;
        this.limit = offset + length;
        this.depth = 0;
        this.opening = opening;
        return this;
    }

    /** @return the offset of the next byte to read */
    public int position() {
        return position;
    }

    /**
     * Lets reads go no further than {@code newLimit} (within the current limit) until {@link #widen}.
     *
     * @return the limit to give back to {@link #widen}
     */
    int narrow(int newLimit) {
        final int outer = limit;
        limit = newLimit;
        return outer;
    }

    /** @param outerLimit what {@link #narrow} returned */
    void widen(int outerLimit) {
        limit = outerLimit;
    }

    /** @return the number of bytes not read yet */
    public int remaining() {
        return limit - position;
    }

    /** @return how descriptors are opened, or {@code null} when shared arrays are refused */
    public ArrayOpening opening() {
        return opening;
    }

    /** @return the registry this reader uses for nested values */
    public Reducers reducers() {
        return reducers;
    }

    /**
     * Reads one value written by {@link ValueWriter#writeValue(Object)}.
     *
     * @return the value, possibly {@code null}
     * @throws MalformedDataException when the bytes are not a valid encoding
     */
    public Object readValue() {
        if (++depth > ValueWriter.MAX_DEPTH) {
            throw new MalformedDataException("value nested deeper than " + ValueWriter.MAX_DEPTH + " levels");
        }
        try {
            return reducers.readTagged(this);
        } finally {
            depth--;
        }
    }

    /**
     * Reads one value like {@link #readValue()}, except when that value is itself a primitive array or a
     * {@code HeapArray} the sender copied into shared memory (it was above the sender's {@code maxBytes}):
     * then the shared copy, opened through this reader's {@link ArrayOpening} (which decides when it is
     * released), is returned as a {@code SharedArray} of the same dtype and shape instead of being copied
     * back to the heap. For a receiver whose code takes any {@code NdArray}. Arrays nested inside the
     * value are rebuilt on the heap as usual.
     *
     * @return the value, possibly {@code null}
     * @throws MalformedDataException when the bytes are not a valid encoding
     */
    public Object readValueKeepingShared() {
        require(1);
        final byte tag = buffer.getByte(position);
        if (tag == Tags.SHARED_PRIMITIVE_ARRAY || tag == Tags.SHARED_HEAP_ARRAY) {
            position++;
            return ArrayCodec.openSharedCopy(tag, this);
        }
        return readValue();
    }

    /**
     * Reads one value and checks its type.
     *
     * @param type the expected type
     * @param <T>  the expected type
     * @return the value, possibly {@code null}
     * @throws MalformedDataException when the value has another type
     */
    public <T> T readValue(Class<T> type) {
        final Object v = readValue();
        if (v != null && !type.isInstance(v)) {
            throw new MalformedDataException("expected " + type.getName() + " but read " + v.getClass().getName());
        }
        return type.cast(v);
    }

    /**
     * Checks that {@code n} more bytes are present.
     *
     * @param n number of bytes about to be read
     * @throws MalformedDataException when fewer are left
     */
    public void require(long n) {
        if (n < 0 || n > limit - position) {
            throw new MalformedDataException("truncated input: need " + n + " bytes at offset " + position
                + ", only " + (limit - position) + " left");
        }
    }

    /** @return the next byte */
    public byte readByte() {
        require(1);
        return buffer.getByte(position++);
    }

    /** @return the next boolean (one byte, 0 or 1) */
    public boolean readBoolean() {
        final byte b = readByte();
        if (b != 0 && b != 1) {
            throw new MalformedDataException("boolean byte must be 0 or 1, was " + b + " at offset " + (position - 1));
        }
        return b == 1;
    }

    /** @return the next short */
    public short readShort() {
        require(2);
        final short v = buffer.getShort(position, ByteOrder.LITTLE_ENDIAN);
        position += 2;
        return v;
    }

    /** @return the next char */
    public char readChar() {
        require(2);
        final char v = buffer.getChar(position, ByteOrder.LITTLE_ENDIAN);
        position += 2;
        return v;
    }

    /** @return the next int */
    public int readInt() {
        require(4);
        final int v = buffer.getInt(position, ByteOrder.LITTLE_ENDIAN);
        position += 4;
        return v;
    }

    /** @return the next long */
    public long readLong() {
        require(8);
        final long v = buffer.getLong(position, ByteOrder.LITTLE_ENDIAN);
        position += 8;
        return v;
    }

    /** @return the next float */
    public float readFloat() {
        require(4);
        final float v = buffer.getFloat(position, ByteOrder.LITTLE_ENDIAN);
        position += 4;
        return v;
    }

    /** @return the next double */
    public double readDouble() {
        require(8);
        final double v = buffer.getDouble(position, ByteOrder.LITTLE_ENDIAN);
        position += 8;
        return v;
    }

    /**
     * Reads a count (collection size, array length) and checks it is plausible: every element takes at
     * least {@code minBytesPerElement} bytes, so a count the remaining input cannot hold is rejected
     * before anything is allocated.
     *
     * @param minBytesPerElement lower bound of one element's encoded size (at least 1)
     * @return the count
     */
    public int readCount(int minBytesPerElement) {
        final int at = position;
        final int n = readInt();
        if (n < 0 || (long) n * Math.max(1, minBytesPerElement) > remaining()) {
            throw new MalformedDataException("count " + n + " at offset " + at + " does not fit in the "
                + remaining() + " bytes left");
        }
        return n;
    }

    /**
     * @return the next string, possibly {@code null}
     * @throws MalformedDataException when its length is out of range or its bytes are not valid UTF-8
     */
    public String readString() {
        final int at = position;
        final int n = readInt();
        if (n == -1) {
            return null;
        }
        if (n < 0) {
            throw new MalformedDataException("negative string length " + n + " at offset " + at);
        }
        require(n);
        final byte[] bytes = new byte[n];
        buffer.getBytes(position, bytes);
        final String s = new String(bytes, StandardCharsets.UTF_8);
        // new String replaces malformed input with U+FFFD: check strictly only when one appears (rare)
        if (s.indexOf('\uFFFD') >= 0) {
            try {
                StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            } catch (CharacterCodingException e) {
                throw new MalformedDataException("string of " + n + " bytes at offset " + at + " is not valid UTF-8");
            }
        }
        position += n;
        return s;
    }

    /** @return the next length-prefixed byte array */
    public byte[] readByteArrayBody() {
        final int n = readCount(1);
        final byte[] bytes = new byte[n];
        buffer.getBytes(position, bytes);
        position += n;
        return bytes;
    }

    /** Reads the elements of a primitive array of the given tag. */
    Object readPrimitiveArray(byte tag) {
        final int size = PrimitiveArrays.elementSize(tag);
        final int n = readCount(size);
        final Object array = PrimitiveArrays.allocate(tag, n);
        final int bytes = n * size;
        PrimitiveArrays.getElements(buffer, position, array, bytes);
        position += bytes;
        return array;
    }
}
