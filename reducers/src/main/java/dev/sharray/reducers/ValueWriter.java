package dev.sharray.reducers;

import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes values into a buffer in the reducers' wire format (little-endian). Reusable: {@link #wrap}
 * points it at a new buffer, so a sender keeps one per thread and allocates nothing per value beyond
 * what the values themselves need.
 *
 * <p>Not thread-safe.
 */
public final class ValueWriter {
    /** Deeper nesting than this is almost certainly a cycle; fail clearly instead of overflowing the stack. */
    static final int MAX_DEPTH = 64;
    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final Reducers reducers;
    private MutableDirectBuffer buffer;
    private int position;
    private int depth;
    private ArraySharing sharing;

    /**
     * @param reducers the registry that writes nested values
     */
    public ValueWriter(Reducers reducers) {
        this.reducers = reducers;
    }

    /**
     * Points this writer at {@code buffer}, writing from {@code offset}.
     *
     * @param buffer  destination; should be expandable ({@link org.agrona.ExpandableArrayBuffer}) unless
     *                the caller knows the size bound
     * @param offset  first byte to write
     * @param sharing how arrays are shared instead of copied; {@code null} writes primitive arrays
     *                inline whatever their size and refuses shared arrays
     * @return this writer
     */
    public ValueWriter wrap(MutableDirectBuffer buffer, int offset, ArraySharing sharing) {
        this.buffer = buffer;
        this.position = offset;
        this.depth = 0;
        this.sharing = sharing;
        return this;
    }

    /** @return the offset of the next byte to be written */
    public int position() {
        return position;
    }

    /** @return the buffer being written */
    public MutableDirectBuffer buffer() {
        return buffer;
    }

    /** @return the sharing policy in force, or {@code null} when arrays are written inline */
    public ArraySharing sharing() {
        return sharing;
    }

    /** @return the registry this writer uses for nested values */
    public Reducers reducers() {
        return reducers;
    }

    /**
     * Writes any value through the registry (tag first), nesting allowed.
     *
     * @param value the value, may be {@code null}
     * @throws ReducerException when no reducer handles the value's type, or nesting exceeds 64 levels
     */
    public void writeValue(Object value) {
        if (++depth > MAX_DEPTH) {
            // undo only this level: the enclosing levels undo theirs as the exception passes them, so a reducer
            // that catches it and writes something else is still held to the limit
            depth--;
            throw new ReducerException("value nested deeper than " + MAX_DEPTH + " levels (a cycle?)");
        }
        try {
            reducers.writeTagged(value, this);
        } finally {
            depth--;
        }
    }

    /** @param v the byte to write */
    public void writeByte(byte v) {
        buffer.putByte(position, v);
        position += 1;
    }

    /** @param v the boolean to write, as one byte */
    public void writeBoolean(boolean v) {
        writeByte(v ? (byte) 1 : (byte) 0);
    }

    /** @param v the short to write */
    public void writeShort(short v) {
        buffer.putShort(position, v, ByteOrder.LITTLE_ENDIAN);
        position += 2;
    }

    /** @param v the char to write */
    public void writeChar(char v) {
        buffer.putChar(position, v, ByteOrder.LITTLE_ENDIAN);
        position += 2;
    }

    /** @param v the int to write */
    public void writeInt(int v) {
        buffer.putInt(position, v, ByteOrder.LITTLE_ENDIAN);
        position += 4;
    }

    /** @param v the long to write */
    public void writeLong(long v) {
        buffer.putLong(position, v, ByteOrder.LITTLE_ENDIAN);
        position += 8;
    }

    /** @param v the float to write */
    public void writeFloat(float v) {
        buffer.putFloat(position, v, ByteOrder.LITTLE_ENDIAN);
        position += 4;
    }

    /** @param v the double to write */
    public void writeDouble(double v) {
        buffer.putDouble(position, v, ByteOrder.LITTLE_ENDIAN);
        position += 8;
    }

    /**
     * Writes a string as its UTF-8 length and bytes; {@code null} is allowed.
     *
     * @param s the string or {@code null}
     * @throws ReducerException when {@code s} holds an unpaired surrogate, which UTF-8 cannot encode
     */
    public void writeString(String s) {
        if (s == null) {
            writeInt(-1);
            return;
        }
        final int n = s.length();
        int firstNonAscii = -1;
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                firstNonAscii = i;
                break;
            }
        }
        if (firstNonAscii < 0) {
            // the common case (class names, keys) needs no intermediate byte[]
            writeInt(n);
            checkRoom(n);
            buffer.putStringWithoutLengthAscii(position, s);
            position += n;
        } else {
            checkSurrogatesPaired(s, firstNonAscii);
            writeByteArrayBody(s.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** String.getBytes would silently write '?' for an unpaired surrogate: the receiver would get another string. */
    private static void checkSurrogatesPaired(String s, int from) {
        final int n = s.length();
        for (int i = from; i < n; i++) {
            final char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new ReducerException("string has an unpaired surrogate U+" + Integer.toHexString(c).toUpperCase()
                    + " at index " + i + ", which UTF-8 cannot encode; send it as a char[] instead");
            }
        }
    }

    /**
     * Writes a byte array as its length and bytes.
     *
     * @param bytes the bytes, not {@code null}
     */
    public void writeByteArrayBody(byte[] bytes) {
        writeInt(bytes.length);
        checkRoom(bytes.length);
        buffer.putBytes(position, bytes);
        position += bytes.length;
    }

    /**
     * Refuses a write that would take the value past what an int-indexed buffer holds: each array is checked
     * against that bound on its own, but several together would wrap the position past 2 GiB, and a bulk copy
     * would then pass the buffer's limit check and write outside it.
     */
    private void checkRoom(int byteCount) {
        if (byteCount > ArrayCodec.MAX_INLINE_BYTES - position) {
            throw new ReducerException("the value is too big to write inline: " + ((long) position + byteCount)
                + " bytes and more; share its large arrays (a SharedArray, or a pool with a smaller maxBytes)");
        }
    }

    /**
     * Writes the elements of a primitive array without length, in little-endian order.
     *
     * @param array     a primitive array
     * @param byteCount its size in bytes
     */
    void writePrimitiveElements(Object array, int byteCount) {
        if (byteCount == 0) {
            return;
        }
        checkRoom(byteCount);
        buffer.checkLimit(position + byteCount); // the copy below is not bounds-checked
        if (NATIVE_LE) {
            // one memcpy instead of an element loop: heap arrays are native-order, which is the wire order here
            UnsafeApi.copyMemory(array, PrimitiveArrays.baseOffset(array), buffer.byteArray(),
                buffer.addressOffset() + position, byteCount);
        } else {
            PrimitiveArrays.putElementsSlow(array, buffer, position);
        }
        position += byteCount;
    }
}
