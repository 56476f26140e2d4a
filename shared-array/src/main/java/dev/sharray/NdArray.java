package dev.sharray;

import org.agrona.UnsafeApi;

import java.util.function.LongConsumer;

/**
 * The read/write API shared by {@link SharedArray} (memory-mapped, shared between processes) and
 * {@link HeapArray} (plain Java heap): element access by multi-index, bulk copies, element-wise arithmetic
 * and reductions. Arithmetic always returns a {@link HeapArray}: a derived value never pretends to be
 * shared; share it explicitly with {@link HeapArray#toShared()}.
 *
 * <p>Typed accessors convert only where no information can be lost (see {@link #getDouble(long...)});
 * otherwise they throw {@link UnsupportedOperationException}. An index outside the shape throws
 * {@link IndexOutOfBoundsException}. The reductions ({@link #sum()}, {@link #mean()}, {@link #min()},
 * {@link #max()}, {@link #dot}) answer in double for every dtype: an INT64 element beyond 2^53 counts as the
 * nearest double (NumPy's integer reductions stay integers); {@link #getLong(long...)} reads it exactly.
 */
public abstract sealed class NdArray permits SharedArray, HeapArray {
    /** Element type. */
    final DType dtype;
    /** Dimensions. */
    final long[] shape;

    NdArray(DType dtype, long[] shape) {
        this.dtype = dtype;
        this.shape = shape;
    }

    // ---- what subclasses provide: element locations and raw reads/writes at a location ----

    /** @return an opaque location (address or flat index) after bounds and state checks */
    abstract long locate(long[] index);

    /** 1-D fast path of {@link #locate(long[])}: no varargs array, one bounds check. */
    abstract long locate(long i);

    /** 2-D fast path of {@link #locate(long[])}. */
    abstract long locate(long i, long j);

    /** Visits every element location in row-major order of this view. */
    abstract void forEachLocation(LongConsumer visitor);

    /** Throws {@link IllegalStateException} if the array can no longer be accessed. */
    abstract void checkAccessible();

    abstract byte readByte(long loc);

    abstract short readShort(long loc);

    abstract int readInt(long loc);

    abstract long readLong(long loc);

    abstract float readFloat(long loc);

    abstract double readDouble(long loc);

    abstract void writeByte(long loc, byte v);

    abstract void writeShort(long loc, short v);

    abstract void writeInt(long loc, int v);

    abstract void writeLong(long loc, long v);

    abstract void writeFloat(long loc, float v);

    abstract void writeDouble(long loc, double v);

    // ---- shape ----

    /** @return element type */
    public final DType dtype() {
        return dtype;
    }

    /** @return the dimensions (a copy) */
    public final long[] shape() {
        return shape.clone();
    }

    /** @return number of dimensions */
    public final int ndim() {
        return shape.length;
    }

    /** @return number of elements */
    public final long size() {
        return Shapes.size(shape);
    }

    /** @return {@code size() * dtype().byteSize()} */
    public final long byteSize() {
        return size() * dtype.byteSize();
    }

    // ---- element access ----

    /**
     * Reads an element as a double: allowed for every dtype but INT64 (which would lose precision).
     *
     * @param index one index per axis
     * @return the element
     */
    public final double getDouble(long... index) {
        Conversions.checkRead(dtype, double.class);
        return valueAsDouble(locate(index));
    }

    /**
     * 1-D form of {@link #getDouble(long...)}, without a varargs array.
     *
     * @param i the index
     * @return the element
     */
    public final double getDouble(long i) {
        if (dtype == DType.FLOAT64) {
            return readDouble(locate(i));
        }
        Conversions.checkRead(dtype, double.class); // before the index, as the varargs form
        return valueAsDouble(locate(i));
    }

    /**
     * 2-D form of {@link #getDouble(long...)}, without a varargs array.
     *
     * @param i the row
     * @param j the column
     * @return the element
     */
    public final double getDouble(long i, long j) {
        if (dtype == DType.FLOAT64) {
            return readDouble(locate(i, j));
        }
        Conversions.checkRead(dtype, double.class); // before the index, as the varargs form
        return valueAsDouble(locate(i, j));
    }

    /**
     * 1-D form of {@link #setDouble(double, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the index
     */
    public final void setDouble(double value, long i) {
        if (dtype != DType.FLOAT64) {
            Conversions.checkWrite(dtype, double.class);
        }
        writeDouble(locate(i), value);
    }

    /**
     * 2-D form of {@link #setDouble(double, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the row
     * @param j the column
     */
    public final void setDouble(double value, long i, long j) {
        Conversions.checkWrite(dtype, double.class);
        writeDouble(locate(i, j), value);
    }

    /**
     * 1-D form of {@link #getLong(long...)}.
     *
     * @param i the index
     * @return the element
     */
    public final long getLong(long i) {
        Conversions.checkRead(dtype, long.class);
        return valueAsLong(locate(i));
    }

    /**
     * 1-D form of {@link #setLong(long, long...)}.
     *
     * @param value the value
     * @param i the index
     */
    public final void setLong(long value, long i) {
        Conversions.checkWrite(dtype, long.class);
        writeLong(locate(i), value);
    }

    /**
     * Writes a double: allowed for FLOAT64 arrays only.
     *
     * @param value the value
     * @param index one index per axis
     */
    public final void setDouble(double value, long... index) {
        Conversions.checkWrite(dtype, double.class);
        writeDouble(locate(index), value);
    }

    /**
     * Reads an element as a float: FLOAT32, INT8, UINT8 and INT16 arrays.
     *
     * @param index one index per axis
     * @return the element
     */
    public final float getFloat(long... index) {
        Conversions.checkRead(dtype, float.class);
        return floatAt(locate(index));
    }

    /**
     * 1-D form of {@link #getFloat(long...)}, without a varargs array.
     *
     * @param i the index
     * @return the element
     */
    public final float getFloat(long i) {
        Conversions.checkRead(dtype, float.class);
        return floatAt(locate(i));
    }

    /**
     * 2-D form of {@link #getFloat(long...)}, without a varargs array.
     *
     * @param i the row
     * @param j the column
     * @return the element
     */
    public final float getFloat(long i, long j) {
        Conversions.checkRead(dtype, float.class);
        return floatAt(locate(i, j));
    }

    /**
     * Writes a float into a FLOAT32 or FLOAT64 array.
     *
     * @param value the value
     * @param index one index per axis
     */
    public final void setFloat(float value, long... index) {
        Conversions.checkWrite(dtype, float.class);
        putFloat(locate(index), value);
    }

    /**
     * 1-D form of {@link #setFloat(float, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the index
     */
    public final void setFloat(float value, long i) {
        Conversions.checkWrite(dtype, float.class);
        putFloat(locate(i), value);
    }

    /**
     * 2-D form of {@link #setFloat(float, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the row
     * @param j the column
     */
    public final void setFloat(float value, long i, long j) {
        Conversions.checkWrite(dtype, float.class);
        putFloat(locate(i, j), value);
    }

    /**
     * Reads an element as a long: every integer dtype.
     *
     * @param index one index per axis
     * @return the element (UINT8 as 0..255)
     */
    public final long getLong(long... index) {
        Conversions.checkRead(dtype, long.class);
        return valueAsLong(locate(index));
    }

    /**
     * 2-D form of {@link #getLong(long...)}, without a varargs array.
     *
     * @param i the row
     * @param j the column
     * @return the element
     */
    public final long getLong(long i, long j) {
        Conversions.checkRead(dtype, long.class);
        return valueAsLong(locate(i, j));
    }

    /**
     * Writes a long into an INT64 array (other dtypes could not hold every long).
     *
     * @param value the value
     * @param index one index per axis
     */
    public final void setLong(long value, long... index) {
        Conversions.checkWrite(dtype, long.class);
        writeLong(locate(index), value);
    }

    /**
     * 2-D form of {@link #setLong(long, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the row
     * @param j the column
     */
    public final void setLong(long value, long i, long j) {
        Conversions.checkWrite(dtype, long.class);
        writeLong(locate(i, j), value);
    }

    /**
     * Reads an element as an int: INT8, UINT8, INT16 and INT32 arrays.
     *
     * @param index one index per axis
     * @return the element
     */
    public final int getInt(long... index) {
        Conversions.checkRead(dtype, int.class);
        return (int) valueAsLong(locate(index));
    }

    /**
     * 1-D form of {@link #getInt(long...)}, without a varargs array.
     *
     * @param i the index
     * @return the element
     */
    public final int getInt(long i) {
        Conversions.checkRead(dtype, int.class);
        return (int) valueAsLong(locate(i));
    }

    /**
     * 2-D form of {@link #getInt(long...)}, without a varargs array.
     *
     * @param i the row
     * @param j the column
     * @return the element
     */
    public final int getInt(long i, long j) {
        Conversions.checkRead(dtype, int.class);
        return (int) valueAsLong(locate(i, j));
    }

    /**
     * Writes an int into an INT32, INT64 or FLOAT64 array.
     *
     * @param value the value
     * @param index one index per axis
     */
    public final void setInt(int value, long... index) {
        Conversions.checkWrite(dtype, int.class);
        storeLong(locate(index), value);
    }

    /**
     * 1-D form of {@link #setInt(int, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the index
     */
    public final void setInt(int value, long i) {
        Conversions.checkWrite(dtype, int.class);
        storeLong(locate(i), value);
    }

    /**
     * 2-D form of {@link #setInt(int, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the row
     * @param j the column
     */
    public final void setInt(int value, long i, long j) {
        Conversions.checkWrite(dtype, int.class);
        storeLong(locate(i, j), value);
    }

    /**
     * Reads an element as a short: INT8, UINT8 and INT16 arrays.
     *
     * @param index one index per axis
     * @return the element
     */
    public final short getShort(long... index) {
        Conversions.checkRead(dtype, short.class);
        return (short) valueAsLong(locate(index));
    }

    /**
     * 1-D form of {@link #getShort(long...)}, without a varargs array.
     *
     * @param i the index
     * @return the element
     */
    public final short getShort(long i) {
        Conversions.checkRead(dtype, short.class);
        return (short) valueAsLong(locate(i));
    }

    /**
     * 2-D form of {@link #getShort(long...)}, without a varargs array.
     *
     * @param i the row
     * @param j the column
     * @return the element
     */
    public final short getShort(long i, long j) {
        Conversions.checkRead(dtype, short.class);
        return (short) valueAsLong(locate(i, j));
    }

    /**
     * Writes a short into an INT16, INT32, INT64, FLOAT32 or FLOAT64 array.
     *
     * @param value the value
     * @param index one index per axis
     */
    public final void setShort(short value, long... index) {
        Conversions.checkWrite(dtype, short.class);
        storeLong(locate(index), value);
    }

    /**
     * 1-D form of {@link #setShort(short, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the index
     */
    public final void setShort(short value, long i) {
        Conversions.checkWrite(dtype, short.class);
        storeLong(locate(i), value);
    }

    /**
     * 2-D form of {@link #setShort(short, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the row
     * @param j the column
     */
    public final void setShort(short value, long i, long j) {
        Conversions.checkWrite(dtype, short.class);
        storeLong(locate(i, j), value);
    }

    /**
     * Reads an element as a byte: INT8, and UINT8 as raw bits (use {@link #getInt} for 0..255).
     *
     * @param index one index per axis
     * @return the element
     */
    public final byte getByte(long... index) {
        Conversions.checkRead(dtype, byte.class);
        return readByte(locate(index));
    }

    /**
     * 1-D form of {@link #getByte(long...)}, without a varargs array.
     *
     * @param i the index
     * @return the element
     */
    public final byte getByte(long i) {
        Conversions.checkRead(dtype, byte.class);
        return readByte(locate(i));
    }

    /**
     * 2-D form of {@link #getByte(long...)}, without a varargs array.
     *
     * @param i the row
     * @param j the column
     * @return the element
     */
    public final byte getByte(long i, long j) {
        Conversions.checkRead(dtype, byte.class);
        return readByte(locate(i, j));
    }

    /**
     * Writes a byte into any dtype but INT8/UINT8 conversions store the raw bits.
     *
     * @param value the value
     * @param index one index per axis
     */
    public final void setByte(byte value, long... index) {
        Conversions.checkWrite(dtype, byte.class);
        putByte(locate(index), value);
    }

    /**
     * 1-D form of {@link #setByte(byte, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the index
     */
    public final void setByte(byte value, long i) {
        Conversions.checkWrite(dtype, byte.class);
        putByte(locate(i), value);
    }

    /**
     * 2-D form of {@link #setByte(byte, long...)}, without a varargs array.
     *
     * @param value the value
     * @param i the row
     * @param j the column
     */
    public final void setByte(byte value, long i, long j) {
        Conversions.checkWrite(dtype, byte.class);
        putByte(locate(i, j), value);
    }

    // ---- bulk copies (row-major order of the view) ----

    /** @return a row-major copy as doubles (every dtype but INT64) */
    public double[] toDoubleArray() {
        Conversions.checkRead(dtype, double.class);
        return valuesAsDoubles();
    }

    /** @return a row-major copy as floats (FLOAT32, INT8, UINT8, INT16) */
    public float[] toFloatArray() {
        Conversions.checkRead(dtype, float.class);
        float[] out = new float[checkedLength()];
        int[] i = {0};
        forEachLocation(loc -> out[i[0]++] = dtype == DType.FLOAT32 ? readFloat(loc) : valueAsLong(loc));
        return out;
    }

    /** @return a row-major copy as longs (integer dtypes) */
    public long[] toLongArray() {
        Conversions.checkRead(dtype, long.class);
        return valuesAsLongs();
    }

    /** @return a row-major copy as ints (INT8, UINT8, INT16, INT32) */
    public int[] toIntArray() {
        Conversions.checkRead(dtype, int.class);
        int[] out = new int[checkedLength()];
        int[] i = {0};
        forEachLocation(loc -> out[i[0]++] = (int) valueAsLong(loc));
        return out;
    }

    /** @return a row-major copy as shorts (INT8, UINT8, INT16) */
    public short[] toShortArray() {
        Conversions.checkRead(dtype, short.class);
        short[] out = new short[checkedLength()];
        int[] i = {0};
        forEachLocation(loc -> out[i[0]++] = (short) valueAsLong(loc));
        return out;
    }

    /** @return a row-major copy as bytes (INT8, and UINT8 as raw bits) */
    public byte[] toByteArray() {
        Conversions.checkRead(dtype, byte.class);
        byte[] out = new byte[checkedLength()];
        int[] i = {0};
        forEachLocation(loc -> out[i[0]++] = readByte(loc));
        return out;
    }

    /**
     * Copies this view into {@code dst} in row-major order (every dtype but INT64): no array is allocated, and a dense
     * FLOAT64 view allocates nothing at all; another dtype or layout allocates a few dozen bytes a call, none per
     * element.
     *
     * @param dst exactly {@link #size()} elements
     * @throws IllegalArgumentException naming the destination's length and the array's size when they differ
     */
    public void copyTo(double[] dst) {
        Conversions.checkRead(dtype, double.class);
        checkLength(dst.length, "destination");
        int[] i = {0};
        forEachLocation(loc -> dst[i[0]++] = valueAsDouble(loc));
    }

    /**
     * Copies {@code src} into this view in row-major order.
     *
     * @param src exactly {@link #size()} values
     */
    public void copyFrom(double[] src) {
        Conversions.checkWrite(dtype, double.class);
        checkLength(src.length, "source");
        int[] i = {0};
        forEachLocation(loc -> writeDouble(loc, src[i[0]++]));
    }

    /** @param src exactly {@link #size()} values, row-major */
    public void copyFrom(float[] src) {
        Conversions.checkWrite(dtype, float.class);
        checkLength(src.length, "source");
        int[] i = {0};
        if (dtype == DType.FLOAT32) {
            // float to float, the bits as they are (as NumPy's copy and the dense path's memcpy): through a double
            // a signalling NaN came back quiet, 0x7f800001 stored as 0x7fc00001
            forEachLocation(loc -> writeFloat(loc, src[i[0]++]));
        } else {
            forEachLocation(loc -> storeDouble(loc, src[i[0]++]));
        }
    }

    /** @param src exactly {@link #size()} values, row-major */
    public void copyFrom(long[] src) {
        Conversions.checkWrite(dtype, long.class);
        checkLength(src.length, "source");
        int[] i = {0};
        forEachLocation(loc -> writeLong(loc, src[i[0]++]));
    }

    /** @param src exactly {@link #size()} values, row-major */
    public void copyFrom(int[] src) {
        Conversions.checkWrite(dtype, int.class);
        checkLength(src.length, "source");
        int[] i = {0};
        forEachLocation(loc -> storeLong(loc, src[i[0]++]));
    }

    /** @param src exactly {@link #size()} values, row-major */
    public void copyFrom(short[] src) {
        Conversions.checkWrite(dtype, short.class);
        checkLength(src.length, "source");
        int[] i = {0};
        forEachLocation(loc -> storeLong(loc, src[i[0]++]));
    }

    /** @param src exactly {@link #size()} values, row-major (raw bits for UINT8) */
    public void copyFrom(byte[] src) {
        Conversions.checkWrite(dtype, byte.class);
        checkLength(src.length, "source");
        int[] i = {0};
        if (dtype == DType.INT8 || dtype == DType.UINT8) {
            forEachLocation(loc -> writeByte(loc, src[i[0]++]));
        } else {
            forEachLocation(loc -> storeLong(loc, src[i[0]++]));
        }
    }

    // ---- arithmetic: results are plain heap arrays ----

    /**
     * An integer array with a whole-number scalar (below 2^53) keeps its dtype, wrapping as NumPy does for a
     * Python int; any other scalar gives FLOAT32 for a FLOAT32 array (in float32 arithmetic, the scalar rounded to
     * float first, as NumPy does) and FLOAT64 otherwise.
     *
     * @param scalar value added to every element
     * @return a new heap array
     * @throws IllegalArgumentException when the array has an integer dtype and the scalar is a whole number that
     *     dtype cannot hold (NumPy 2 refuses it too: {@code OverflowError})
     */
    public HeapArray add(double scalar) {
        return Arithmetic.scalar(this, scalar, Arithmetic.Op.ADD);
    }

    /**
     * @param other an array of the same shape (shared or heap)
     * @return a new heap array of the element-wise sums
     */
    public HeapArray add(NdArray other) {
        return Arithmetic.elementWise(this, other, Arithmetic.Op.ADD);
    }

    /**
     * An integer array with a whole-number scalar (below 2^53) keeps its dtype, wrapping as NumPy does for a
     * Python int; any other scalar gives FLOAT32 for a FLOAT32 array (in float32 arithmetic, the scalar rounded to
     * float first, as NumPy does) and FLOAT64 otherwise.
     *
     * @param scalar value subtracted from every element
     * @return a new heap array
     * @throws IllegalArgumentException when the array has an integer dtype and the scalar is a whole number that
     *     dtype cannot hold (NumPy 2 refuses it too: {@code OverflowError})
     */
    public HeapArray subtract(double scalar) {
        return Arithmetic.scalar(this, scalar, Arithmetic.Op.SUBTRACT);
    }

    /**
     * @param other an array of the same shape
     * @return a new heap array of the element-wise differences
     */
    public HeapArray subtract(NdArray other) {
        return Arithmetic.elementWise(this, other, Arithmetic.Op.SUBTRACT);
    }

    /**
     * An integer array with a whole-number scalar (below 2^53) keeps its dtype, wrapping as NumPy does for a
     * Python int; any other scalar gives FLOAT32 for a FLOAT32 array (in float32 arithmetic, the scalar rounded to
     * float first, as NumPy does) and FLOAT64 otherwise.
     *
     * @param scalar factor
     * @return a new heap array
     * @throws IllegalArgumentException when the array has an integer dtype and the scalar is a whole number that
     *     dtype cannot hold (NumPy 2 refuses it too: {@code OverflowError})
     */
    public HeapArray multiply(double scalar) {
        return Arithmetic.scalar(this, scalar, Arithmetic.Op.MULTIPLY);
    }

    /**
     * @param other an array of the same shape
     * @return a new heap array of the element-wise products
     */
    public HeapArray multiply(NdArray other) {
        return Arithmetic.elementWise(this, other, Arithmetic.Op.MULTIPLY);
    }

    /**
     * True division, as NumPy's {@code /}: integer arrays give FLOAT64; a FLOAT32 array gives FLOAT32, divided by the
     * scalar rounded to float, as NumPy does.
     *
     * @param scalar divisor
     * @return a new heap array
     */
    public HeapArray divide(double scalar) {
        return Arithmetic.scalar(this, scalar, Arithmetic.Op.DIVIDE);
    }

    /**
     * @param other an array of the same shape
     * @return a new heap array of the element-wise quotients
     */
    public HeapArray divide(NdArray other) {
        return Arithmetic.elementWise(this, other, Arithmetic.Op.DIVIDE);
    }

    /**
     * Sums in NumPy's pairwise order (NumPy 2's, over the whole array in row-major order): runs of at most 128
     * elements in eight interleaved partial sums, longer runs split in halves whose sums are added. The rounding
     * error grows with the logarithm of the size rather than with the size, and a dense FLOAT64 array gives the same
     * bits as NumPy 2's {@code sum} (NumPy 1 adds the pairwise sums of blocks of 8,192 elements one by one, so it can
     * differ in the last bits past that size). Every layout of the same values (heap, shared, any view) gives the
     * same bits (for a NaN result: a NaN, whose payload may be another of the NaNs summed). Other dtypes are summed as doubles in the same order.
     *
     * @return the sum of all elements (0 for an empty array)
     */
    public double sum() {
        checkAccessible();
        if (isDenseFloat64()) {
            return 0.0 + PairwiseSum.ofDense(unsafeBase(), unsafeOffset(), size());
        }
        final PairwiseSum sum = new PairwiseSum(size());
        forEachLocation(loc -> sum.add(valueAsDouble(loc)));
        return 0.0 + sum.result();
    }

    /**
     * @return the smallest element, as a double (see the class comment for INT64); NaN if any element is NaN;
     *     {@code -0.0} when it and {@code 0.0} tie, as {@link Math#min} (NumPy returns either zero, by position)
     * @throws IllegalStateException when the array is empty (as NumPy refuses, with {@code ValueError}), or released
     */
    public double min() {
        return extreme(true);
    }

    /**
     * @return the largest element, as a double (see the class comment for INT64); NaN if any element is NaN;
     *     {@code 0.0} when it and {@code -0.0} tie, as {@link Math#max} (NumPy returns either zero, by position)
     * @throws IllegalStateException when the array is empty (as NumPy refuses, with {@code ValueError}), or released
     */
    public double max() {
        return extreme(false);
    }

    /** @return the arithmetic mean (NaN for an empty array) */
    public double mean() {
        checkAccessible(); // before the empty case, which reads nothing but must not answer for a released handle
        long n = size();
        return n == 0 ? Double.NaN : sum() / n;
    }

    /**
     * Sums the products in the order of {@link #sum()} (pairwise, in row-major order), so every layout of the same
     * values gives the same bits (a NaN's payload aside, as for {@link #sum()}). Both arrays are streamed, never copied; contiguous FLOAT64 operands (a dense shared
     * array or view, a FLOAT64 heap array) take a fast path.
     *
     * @param other an array of the same shape
     * @return the sum of the element-wise products (the flattened inner product)
     */
    public double dot(NdArray other) {
        Arithmetic.checkSameShape(this, other);
        checkAccessible();
        other.checkAccessible();
        if (isDenseFloat64() && other.isDenseFloat64()) {
            return 0.0 + PairwiseSum.ofDenseProducts(unsafeBase(), unsafeOffset(), other.unsafeBase(),
                other.unsafeOffset(), size());
        }
        // the other's element at the same row-major index as this one's: the two may be laid out differently
        final long[] shape = shape();
        final long[] index = new long[shape.length];
        final PairwiseSum sum = new PairwiseSum(size());
        forEachLocation(loc -> {
            sum.add(valueAsDouble(loc) * other.valueAsDouble(other.locate(index)));
            for (int d = index.length - 1; d >= 0 && ++index[d] == shape[d]; d--) {
                index[d] = 0;
            }
        });
        return 0.0 + sum.result();
    }

    /** @return whether the elements are FLOAT64, contiguous in row-major order at {@link #unsafeOffset()} */
    abstract boolean isDenseFloat64();

    /** @return the object holding the elements for {@code Unsafe} reads, {@code null} when off the heap */
    abstract Object unsafeBase();

    /** @return the offset of the first element in {@link #unsafeBase()}, or its address when that is {@code null} */
    abstract long unsafeOffset();

    private double extreme(boolean min) {
        checkAccessible();
        if (size() == 0) {
            throw new IllegalStateException((min ? "min" : "max") + " of an empty array");
        }
        double[] acc = {min ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY};
        forEachLocation(loc -> {
            double v = valueAsDouble(loc);
            acc[0] = min ? Math.min(acc[0], v) : Math.max(acc[0], v);
        });
        return acc[0];
    }

    // ---- conversions used internally (lossy allowed: arithmetic and reductions) ----

    final double valueAsDouble(long loc) {
        switch (dtype) {
            case FLOAT64:
                return readDouble(loc);
            case FLOAT32:
                return readFloat(loc);
            default:
                return valueAsLong(loc);
        }
    }

    final long valueAsLong(long loc) {
        switch (dtype) {
            case INT8:
                return readByte(loc);
            case UINT8:
                return readByte(loc) & 0xff;
            case INT16:
                return readShort(loc);
            case INT32:
                return readInt(loc);
            case INT64:
                return readLong(loc);
            case FLOAT32:
                return (long) readFloat(loc);
            default:
                return (long) readDouble(loc);
        }
    }

    private float floatAt(long loc) {
        return dtype == DType.FLOAT32 ? readFloat(loc) : (float) valueAsLong(loc);
    }

    private void putFloat(long loc, float value) {
        if (dtype == DType.FLOAT32) {
            writeFloat(loc, value);
        } else {
            writeDouble(loc, value);
        }
    }

    private void putByte(long loc, byte value) {
        if (dtype == DType.INT8 || dtype == DType.UINT8) {
            writeByte(loc, value);
        } else {
            storeLong(loc, value);
        }
    }

    /** Stores an integer value, narrowing (wrapping) to the dtype as NumPy's casts do. */
    final void storeLong(long loc, long v) {
        switch (dtype) {
            case INT8:
            case UINT8:
                writeByte(loc, (byte) v);
                break;
            case INT16:
                writeShort(loc, (short) v);
                break;
            case INT32:
                writeInt(loc, (int) v);
                break;
            case INT64:
                writeLong(loc, v);
                break;
            case FLOAT32:
                writeFloat(loc, v);
                break;
            default:
                writeDouble(loc, v);
        }
    }

    final void storeDouble(long loc, double v) {
        switch (dtype) {
            case FLOAT64:
                writeDouble(loc, v);
                break;
            case FLOAT32:
                writeFloat(loc, (float) v);
                break;
            default:
                storeLong(loc, (long) v);
        }
    }

    double[] valuesAsDoubles() {
        double[] out = new double[checkedLength()];
        int[] i = {0};
        forEachLocation(loc -> out[i[0]++] = valueAsDouble(loc));
        return out;
    }

    long[] valuesAsLongs() {
        long[] out = new long[checkedLength()];
        int[] i = {0};
        forEachLocation(loc -> out[i[0]++] = valueAsLong(loc));
        return out;
    }

    final int checkedLength() {
        checkAccessible();
        long n = size();
        if (n > Integer.MAX_VALUE - 8) {
            throw new UnsupportedOperationException(n + " elements do not fit a Java array; copy a slice at a time");
        }
        return (int) n;
    }

    /** @param role what the Java array is to the copy ("source" or "destination"), for the message */
    final void checkLength(int length, String role) {
        checkAccessible();
        if (length != size()) {
            throw new IllegalArgumentException(role + " has " + length + " elements, the array " + Shapes.tuple(shape)
                + " has " + size());
        }
    }

    static IndexOutOfBoundsException outOfBounds(long[] index, long[] shape, int axis) {
        return new IndexOutOfBoundsException("index " + index[axis] + " is out of bounds for axis " + axis
            + " with size " + shape[axis] + " (shape " + Shapes.tuple(shape) + ")");
    }

    static IllegalArgumentException wrongRank(long[] index, long[] shape) {
        return new IllegalArgumentException(index.length + " indices for an array of " + shape.length
            + " dimensions " + Shapes.tuple(shape));
    }
}
