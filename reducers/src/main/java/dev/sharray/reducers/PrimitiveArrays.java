package dev.sharray.reducers;

import dev.sharray.NdArray;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/** Facts about the eight primitive array types, keyed by the array tags of {@link Tags}. */
final class PrimitiveArrays {
    private static final long BOOLEAN_BASE = UnsafeApi.arrayBaseOffset(boolean[].class);
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long SHORT_BASE = UnsafeApi.arrayBaseOffset(short[].class);
    private static final long CHAR_BASE = UnsafeApi.arrayBaseOffset(char[].class);
    private static final long INT_BASE = UnsafeApi.arrayBaseOffset(int[].class);
    private static final long LONG_BASE = UnsafeApi.arrayBaseOffset(long[].class);
    private static final long FLOAT_BASE = UnsafeApi.arrayBaseOffset(float[].class);
    private static final long DOUBLE_BASE = UnsafeApi.arrayBaseOffset(double[].class);

    private PrimitiveArrays() {
    }

    /**
     * Copies a double, float, long, int, short or byte array (the element types an array can hold) into
     * {@code dst}, whose size must be the array's length.
     */
    static void copyInto(NdArray dst, Object data) {
        if (data instanceof double[]) {
            dst.copyFrom((double[]) data);
        } else if (data instanceof float[]) {
            dst.copyFrom((float[]) data);
        } else if (data instanceof long[]) {
            dst.copyFrom((long[]) data);
        } else if (data instanceof int[]) {
            dst.copyFrom((int[]) data);
        } else if (data instanceof short[]) {
            dst.copyFrom((short[]) data);
        } else {
            dst.copyFrom((byte[]) data);
        }
    }

    /** @return the array tag for a primitive array, or -1 when {@code o} is not one */
    static byte tagOf(Object o) {
        if (o instanceof double[]) {
            return Tags.DOUBLE_ARRAY;
        } else if (o instanceof float[]) {
            return Tags.FLOAT_ARRAY;
        } else if (o instanceof long[]) {
            return Tags.LONG_ARRAY;
        } else if (o instanceof int[]) {
            return Tags.INT_ARRAY;
        } else if (o instanceof short[]) {
            return Tags.SHORT_ARRAY;
        } else if (o instanceof byte[]) {
            return Tags.BYTE_ARRAY;
        } else if (o instanceof char[]) {
            return Tags.CHAR_ARRAY;
        } else if (o instanceof boolean[]) {
            return Tags.BOOLEAN_ARRAY;
        }
        return -1;
    }

    static int elementSize(byte tag) {
        switch (tag) {
            case Tags.BOOLEAN_ARRAY:
            case Tags.BYTE_ARRAY:
                return 1;
            case Tags.SHORT_ARRAY:
            case Tags.CHAR_ARRAY:
                return 2;
            case Tags.INT_ARRAY:
            case Tags.FLOAT_ARRAY:
                return 4;
            case Tags.LONG_ARRAY:
            case Tags.DOUBLE_ARRAY:
                return 8;
            default:
                throw new MalformedDataException("not a primitive array tag: " + tag);
        }
    }

    static int length(Object array) {
        return java.lang.reflect.Array.getLength(array);
    }

    static Object allocate(byte tag, int length) {
        switch (tag) {
            case Tags.BOOLEAN_ARRAY: return new boolean[length];
            case Tags.BYTE_ARRAY: return new byte[length];
            case Tags.SHORT_ARRAY: return new short[length];
            case Tags.CHAR_ARRAY: return new char[length];
            case Tags.INT_ARRAY: return new int[length];
            case Tags.LONG_ARRAY: return new long[length];
            case Tags.FLOAT_ARRAY: return new float[length];
            case Tags.DOUBLE_ARRAY: return new double[length];
            default: throw new MalformedDataException("not a primitive array tag: " + tag);
        }
    }

    static long baseOffset(Object array) {
        if (array instanceof double[]) {
            return DOUBLE_BASE;
        } else if (array instanceof float[]) {
            return FLOAT_BASE;
        } else if (array instanceof long[]) {
            return LONG_BASE;
        } else if (array instanceof int[]) {
            return INT_BASE;
        } else if (array instanceof short[]) {
            return SHORT_BASE;
        } else if (array instanceof char[]) {
            return CHAR_BASE;
        } else if (array instanceof boolean[]) {
            return BOOLEAN_BASE;
        }
        return BYTE_BASE;
    }

    /** Copies {@code byteCount} bytes of elements from native memory or a byte[] buffer into {@code array}. */
    static void getElements(DirectBuffer buffer, int index, Object array, int byteCount) {
        if (byteCount == 0) {
            return;
        }
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            UnsafeApi.copyMemory(buffer.byteArray(), buffer.addressOffset() + index, array, baseOffset(array), byteCount);
        } else {
            getElementsSlow(buffer, index, array);
        }
        if (array instanceof boolean[]) {
            // a boolean byte other than 0/1 is undefined behaviour for the JIT: normalise hostile input
            final boolean[] b = (boolean[]) array;
            for (int i = 0; i < b.length; i++) {
                b[i] = buffer.getByte(index + i) != 0;
            }
        }
    }

    /** Big-endian hosts only: element by element, converting to the little-endian wire order. */
    static void putElementsSlow(Object array, MutableDirectBuffer buffer, int index) {
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        if (array instanceof double[]) {
            for (double v : (double[]) array) { buffer.putDouble(index, v, le); index += 8; }
        } else if (array instanceof float[]) {
            for (float v : (float[]) array) { buffer.putFloat(index, v, le); index += 4; }
        } else if (array instanceof long[]) {
            for (long v : (long[]) array) { buffer.putLong(index, v, le); index += 8; }
        } else if (array instanceof int[]) {
            for (int v : (int[]) array) { buffer.putInt(index, v, le); index += 4; }
        } else if (array instanceof short[]) {
            for (short v : (short[]) array) { buffer.putShort(index, v, le); index += 2; }
        } else if (array instanceof char[]) {
            for (char v : (char[]) array) { buffer.putChar(index, v, le); index += 2; }
        } else if (array instanceof boolean[]) {
            for (boolean v : (boolean[]) array) { buffer.putByte(index++, v ? (byte) 1 : 0); }
        } else {
            buffer.putBytes(index, (byte[]) array);
        }
    }

    private static void getElementsSlow(DirectBuffer buffer, int index, Object array) {
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        if (array instanceof double[]) {
            final double[] a = (double[]) array;
            for (int i = 0; i < a.length; i++) { a[i] = buffer.getDouble(index + 8 * i, le); }
        } else if (array instanceof float[]) {
            final float[] a = (float[]) array;
            for (int i = 0; i < a.length; i++) { a[i] = buffer.getFloat(index + 4 * i, le); }
        } else if (array instanceof long[]) {
            final long[] a = (long[]) array;
            for (int i = 0; i < a.length; i++) { a[i] = buffer.getLong(index + 8 * i, le); }
        } else if (array instanceof int[]) {
            final int[] a = (int[]) array;
            for (int i = 0; i < a.length; i++) { a[i] = buffer.getInt(index + 4 * i, le); }
        } else if (array instanceof short[]) {
            final short[] a = (short[]) array;
            for (int i = 0; i < a.length; i++) { a[i] = buffer.getShort(index + 2 * i, le); }
        } else if (array instanceof char[]) {
            final char[] a = (char[]) array;
            for (int i = 0; i < a.length; i++) { a[i] = buffer.getChar(index + 2 * i, le); }
        } else if (array instanceof byte[]) {
            buffer.getBytes(index, (byte[]) array);
        }
    }
}
