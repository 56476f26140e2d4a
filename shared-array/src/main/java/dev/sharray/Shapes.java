package dev.sharray;

import java.util.Objects;

/** Shape and stride arithmetic, overflow-checked; shared by descriptors, views and heap arrays. */
final class Shapes {
    private Shapes() {
    }

    static long size(long[] shape) {
        long n = 1;
        for (long s : shape) {
            n *= s;
        }
        return n;
    }

    /** True when some dimension is 0 (unlike {@code size(shape) == 0}, which a wrapped product could fake). */
    static boolean isEmpty(long[] shape) {
        for (long s : shape) {
            if (s == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Rejects negative dimensions and shapes whose byte size, counting only the non-zero dimensions (NumPy's
     * rule), overflows a long. Zeros are skipped rather than multiplied in: a 0 that came first used to hide an
     * overflow of the dimensions after it, so {@code (0, 2^61)} of FLOAT64 passed while its transpose
     * {@code (2^61, 0)} did not, and views of a legal array could fail to describe themselves.
     */
    static void checkShape(long[] shape, DType dtype) {
        if (shape.length > Descriptor.MAX_NDIM) {
            throw new InvalidDescriptorException("ndim", shape.length + " exceeds " + Descriptor.MAX_NDIM);
        }
        long n = dtype.byteSize();
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new InvalidDescriptorException("shape", "dimension " + i + " is negative: " + tuple(shape));
            }
            if (shape[i] == 0) {
                continue;
            }
            try {
                n = Math.multiplyExact(n, shape[i]);
            } catch (ArithmeticException e) {
                throw new InvalidDescriptorException("shape", tuple(shape) + " of " + dtype + " overflows 2^63 bytes");
            }
        }
    }

    /**
     * {@link #checkShape} for an array being made ({@code SharedArray.create}, {@code HeapArray.zeros} and
     * {@code of}): the same refusal as a plain {@link IllegalArgumentException}. The caller passed a bad argument;
     * no descriptor or {@code .npy} header is involved, and an {@link InvalidDescriptorException} said there was.
     */
    static void checkNewShape(long[] shape, DType dtype) {
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(dtype, "dtype");
        try {
            checkShape(shape, dtype);
        } catch (InvalidDescriptorException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /**
     * Checks that every byte the view can touch lies in [0, 2^63): offset + lowest and highest element
     * extents, overflow-checked. Returns nothing; the file-size check happens when the view is mapped.
     */
    static void checkExtent(long offset, long[] shape, long[] strides, DType dtype) {
        long[] span = span(shape, strides, dtype);
        if (span == null) {
            return;
        }
        try {
            long lo = Math.addExact(offset, span[0]);
            long hi = Math.addExact(offset, span[1]);
            if (lo < 0) {
                throw new InvalidDescriptorException("strides", "view reaches " + (-lo) + " bytes before the start of the file");
            }
            if (hi < 0) {
                throw new InvalidDescriptorException("strides", "view extent overflows");
            }
        } catch (ArithmeticException e) {
            throw new InvalidDescriptorException("strides", "view extent overflows");
        }
    }

    /**
     * Byte range touched relative to the first element: {lowest byte, one past the highest byte}; null for
     * an empty view.
     */
    static long[] span(long[] shape, long[] strides, DType dtype) {
        long lo = 0;
        long hi = dtype.byteSize();
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == 0) {
                return null;
            }
            long reach;
            try {
                reach = Math.multiplyExact(shape[i] - 1, strides[i]);
                if (reach < 0) {
                    lo = Math.addExact(lo, reach);
                } else {
                    hi = Math.addExact(hi, reach);
                }
            } catch (ArithmeticException e) {
                throw new InvalidDescriptorException("strides", "view extent overflows along axis " + i);
            }
        }
        return new long[] {lo, hi};
    }

    /**
     * The first axis whose stride moves between elements but is not a multiple of {@code itemSize}, or -1: an axis of
     * one element applies no stride, and a view with no element none at all (NumPy's contiguity flags ignore them too).
     * Elements that start on a boundary of their size from the data's start stay on one only if every applied stride
     * keeps them there.
     */
    static int misalignedAxis(long[] shape, long[] strides, int itemSize) {
        if (isEmpty(shape)) {
            return -1;
        }
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] > 1 && strides[i] % itemSize != 0) {
                return i;
            }
        }
        return -1;
    }

    static long[] cStrides(long[] shape, int itemSize) {
        long[] strides = new long[shape.length];
        long s = itemSize;
        for (int i = shape.length - 1; i >= 0; i--) {
            strides[i] = s;
            s *= Math.max(1, shape[i]);
        }
        return strides;
    }

    static long[] fortranStrides(long[] shape, int itemSize) {
        long[] strides = new long[shape.length];
        long s = itemSize;
        for (int i = 0; i < shape.length; i++) {
            strides[i] = s;
            s *= Math.max(1, shape[i]);
        }
        return strides;
    }

    /**
     * True when the view is row-major and dense (axes of length 1 may have any stride), and for every empty view
     * whatever its strides, as NumPy's {@code C_CONTIGUOUS}: an empty view holds no bytes to be out of order.
     */
    static boolean isCContiguous(long[] shape, long[] strides, int itemSize) {
        if (isEmpty(shape)) {
            return true;
        }
        long expected = itemSize;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && strides[i] != expected) {
                return false;
            }
            expected *= shape[i];
        }
        return true;
    }

    static String tuple(long[] values) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < values.length; i++) {
            sb.append(values[i]);
            if (i < values.length - 1 || values.length == 1) {
                sb.append(values.length == 1 ? "," : ", ");
            }
        }
        return sb.append(')').toString();
    }
}
