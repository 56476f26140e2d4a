package dev.sharray;

import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * A plain n-dimensional array on the Java heap: no file, no reference count, nothing to release. Results
 * of arithmetic on shared arrays are heap arrays; {@link #toShared()} shares one explicitly. A bad shape given to
 * {@code of} or {@code zeros} (a negative dimension, too many dimensions, a byte size past 2^63, or not the data's
 * length) is refused with {@link IllegalArgumentException}.
 */
public final class HeapArray extends NdArray {
    private final Object data;
    private final long[] cStrides;

    private HeapArray(DType dtype, Object data, long[] shape) {
        super(dtype, shape.clone());
        Shapes.checkNewShape(this.shape, dtype);
        int length = java.lang.reflect.Array.getLength(data);
        if (Shapes.size(this.shape) != length) {
            throw new IllegalArgumentException("shape " + Shapes.tuple(this.shape) + " needs " + Shapes.size(this.shape)
                + " elements, data has " + length);
        }
        this.data = data;
        this.cStrides = Shapes.cStrides(this.shape, 1);
    }

    private static long[] shapeOr1d(long[] shape, int length) {
        return shape.length == 0 ? new long[] {length} : shape;
    }

    /**
     * Wraps (does not copy) {@code data} as a FLOAT64 array.
     *
     * @param data row-major values
     * @param shape dimensions; none means 1-D of {@code data.length}
     * @return the heap array
     */
    public static HeapArray of(double[] data, long... shape) {
        return new HeapArray(DType.FLOAT64, data, shapeOr1d(shape, data.length));
    }

    /**
     * @param data row-major values (wrapped, not copied)
     * @param shape dimensions; none means 1-D
     * @return a FLOAT32 heap array
     */
    public static HeapArray of(float[] data, long... shape) {
        return new HeapArray(DType.FLOAT32, data, shapeOr1d(shape, data.length));
    }

    /**
     * @param data row-major values (wrapped, not copied)
     * @param shape dimensions; none means 1-D
     * @return an INT64 heap array
     */
    public static HeapArray of(long[] data, long... shape) {
        return new HeapArray(DType.INT64, data, shapeOr1d(shape, data.length));
    }

    /**
     * @param data row-major values (wrapped, not copied)
     * @param shape dimensions; none means 1-D
     * @return an INT32 heap array
     */
    public static HeapArray of(int[] data, long... shape) {
        return new HeapArray(DType.INT32, data, shapeOr1d(shape, data.length));
    }

    /**
     * @param data row-major values (wrapped, not copied)
     * @param shape dimensions; none means 1-D
     * @return an INT16 heap array
     */
    public static HeapArray of(short[] data, long... shape) {
        return new HeapArray(DType.INT16, data, shapeOr1d(shape, data.length));
    }

    /**
     * @param data row-major values (wrapped, not copied)
     * @param shape dimensions; none means 1-D
     * @return an INT8 heap array
     */
    public static HeapArray of(byte[] data, long... shape) {
        return new HeapArray(DType.INT8, data, shapeOr1d(shape, data.length));
    }

    /**
     * Wraps bytes as INT8 or UINT8.
     *
     * @param dtype INT8 or UINT8
     * @param data row-major values
     * @param shape dimensions; none means 1-D
     * @return the heap array
     */
    public static HeapArray ofBytes(DType dtype, byte[] data, long... shape) {
        if (dtype != DType.INT8 && dtype != DType.UINT8) {
            throw new IllegalArgumentException("ofBytes takes INT8 or UINT8, not " + dtype);
        }
        return new HeapArray(dtype, data, shapeOr1d(shape, data.length));
    }

    /**
     * A zero-filled heap array.
     *
     * @param dtype element type
     * @param shape dimensions
     * @return the heap array
     * @throws IllegalArgumentException when a dimension is negative, there are too many, the byte size overflows
     *     2^63, or the elements do not fit a Java array
     */
    public static HeapArray zeros(DType dtype, long... shape) {
        Shapes.checkNewShape(shape, dtype);
        long n = Shapes.size(shape);
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(n + " elements do not fit a heap array; use SharedArray.create");
        }
        return new HeapArray(dtype, newStorage(dtype, (int) n), shape);
    }

    private static Object newStorage(DType dtype, int n) {
        switch (dtype) {
            case INT8:
            case UINT8:
                return new byte[n];
            case INT16:
                return new short[n];
            case INT32:
                return new int[n];
            case INT64:
                return new long[n];
            case FLOAT32:
                return new float[n];
            default:
                return new double[n];
        }
    }

    static HeapArray fromLongs(DType dtype, long[] values, long[] shape) {
        HeapArray h = zeros(dtype, shape);
        for (int i = 0; i < values.length; i++) {
            h.storeLong(i, values[i]);
        }
        return h;
    }

    static HeapArray fromDoubles(DType dtype, double[] values, long[] shape) {
        if (dtype == DType.FLOAT64) {
            return new HeapArray(dtype, values, shape);
        }
        HeapArray h = zeros(dtype, shape);
        for (int i = 0; i < values.length; i++) {
            h.storeDouble(i, values[i]);
        }
        return h;
    }

    /**
     * The backing Java array (not a copy): {@code byte[]} for INT8/UINT8, {@code short[]}, {@code int[]},
     * {@code long[]}, {@code float[]} or {@code double[]}, row-major.
     *
     * @return the storage
     */
    public Object data() {
        return data;
    }

    @Override
    boolean isDenseFloat64() {
        return dtype == DType.FLOAT64 && data instanceof double[];
    }

    @Override
    Object unsafeBase() {
        return data;
    }

    @Override
    long unsafeOffset() {
        // the only use of Agrona's UnsafeApi by a heap array (sum, dot): a JVM without the flags is told so here
        // and at every later call, where the class's initializer failed once and then every use of it
        JvmAccess.requireFlags();
        return DoublesBase.OFFSET;
    }

    /** Where a double[]'s elements start, for {@link NdArray#dot}'s reads: loaded with its first use. */
    private static final class DoublesBase {
        static final long OFFSET = org.agrona.UnsafeApi.arrayBaseOffset(double[].class);
    }

    /**
     * Copies this array into a new shared array (the caller releases it).
     *
     * @return a shared copy
     */
    public SharedArray toShared() {
        return toShared(null); // null: the default folder, as SharedArray.create uses
    }

    /**
     * Copies this array into a new shared array under {@code root} (see {@link SharedArray.Builder#folder}).
     *
     * @param root the root folder for the shared copy
     * @return a shared copy; release it when done
     */
    public SharedArray toShared(java.nio.file.Path root) {
        return SharedArray.filled(dtype, shape, data, root);
    }

    @Override
    long locate(long[] index) {
        if (index.length != shape.length) {
            throw wrongRank(index, shape);
        }
        long flat = 0;
        for (int i = 0; i < index.length; i++) {
            if (index[i] < 0 || index[i] >= shape[i]) {
                throw outOfBounds(index, shape, i);
            }
            flat += index[i] * cStrides[i];
        }
        return flat;
    }

    @Override
    long locate(long i) {
        if (shape.length != 1) {
            throw wrongRank(new long[] {i}, shape);
        }
        if (i < 0 || i >= shape[0]) {
            throw outOfBounds(new long[] {i}, shape, 0);
        }
        return i;
    }

    @Override
    long locate(long i, long j) {
        // the 2-D fast path: no index array unless it has to go into an exception message
        if (shape.length != 2) {
            throw wrongRank(new long[] {i, j}, shape);
        }
        if (i < 0 || i >= shape[0]) {
            throw outOfBounds(new long[] {i, j}, shape, 0);
        }
        if (j < 0 || j >= shape[1]) {
            throw outOfBounds(new long[] {i, j}, shape, 1);
        }
        return i * cStrides[0] + j * cStrides[1];
    }

    @Override
    void forEachLocation(LongConsumer visitor) {
        long n = size();
        for (long i = 0; i < n; i++) {
            visitor.accept(i);
        }
    }

    @Override
    void checkAccessible() {
        // heap arrays are always accessible
    }

    @Override
    byte readByte(long loc) {
        return ((byte[]) data)[(int) loc];
    }

    @Override
    short readShort(long loc) {
        return ((short[]) data)[(int) loc];
    }

    @Override
    int readInt(long loc) {
        return ((int[]) data)[(int) loc];
    }

    @Override
    long readLong(long loc) {
        return ((long[]) data)[(int) loc];
    }

    @Override
    float readFloat(long loc) {
        return ((float[]) data)[(int) loc];
    }

    @Override
    double readDouble(long loc) {
        return ((double[]) data)[(int) loc];
    }

    @Override
    void writeByte(long loc, byte v) {
        ((byte[]) data)[(int) loc] = v;
    }

    @Override
    void writeShort(long loc, short v) {
        ((short[]) data)[(int) loc] = v;
    }

    @Override
    void writeInt(long loc, int v) {
        ((int[]) data)[(int) loc] = v;
    }

    @Override
    void writeLong(long loc, long v) {
        ((long[]) data)[(int) loc] = v;
    }

    @Override
    void writeFloat(long loc, float v) {
        ((float[]) data)[(int) loc] = v;
    }

    @Override
    void writeDouble(long loc, double v) {
        ((double[]) data)[(int) loc] = v;
    }

    @Override
    public String toString() {
        return "HeapArray[" + dtype.name().toLowerCase() + " " + Shapes.tuple(shape) + "]";
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof HeapArray)) {
            return false;
        }
        HeapArray h = (HeapArray) o;
        return dtype == h.dtype && Arrays.equals(shape, h.shape) && java.util.Objects.deepEquals(data, h.data);
    }

    /** Of the dtype, shape and every element, as {@link #equals} compares them (keys that differ must spread). */
    @Override
    public int hashCode() {
        return (dtype.ordinal() * 31 + Arrays.hashCode(shape)) * 31 + dataHashCode();
    }

    private int dataHashCode() {
        if (data instanceof double[]) {
            return Arrays.hashCode((double[]) data);
        } else if (data instanceof float[]) {
            return Arrays.hashCode((float[]) data);
        } else if (data instanceof long[]) {
            return Arrays.hashCode((long[]) data);
        } else if (data instanceof int[]) {
            return Arrays.hashCode((int[]) data);
        } else if (data instanceof short[]) {
            return Arrays.hashCode((short[]) data);
        }
        return Arrays.hashCode((byte[]) data);
    }
}
