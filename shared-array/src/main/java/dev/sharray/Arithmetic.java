package dev.sharray;

import java.util.Arrays;
import java.util.Objects;

/** Element-wise arithmetic with NumPy-like result dtypes; every result is a fresh {@link HeapArray}. */
final class Arithmetic {
    enum Op { ADD, SUBTRACT, MULTIPLY, DIVIDE }

    private Arithmetic() {
    }

    static void checkSameShape(NdArray a, NdArray b) {
        Objects.requireNonNull(b, "other");
        if (!Arrays.equals(a.shape, b.shape)) {
            throw new IllegalArgumentException("shapes differ: " + Shapes.tuple(a.shape) + " and " + Shapes.tuple(b.shape)
                + " (no broadcasting)");
        }
    }

    static HeapArray scalar(NdArray a, double s, Op op) {
        a.checkAccessible();
        boolean integral = s == Math.rint(s) && Math.abs(s) < 0x1p53;
        if (!a.dtype.isFloating() && op != Op.DIVIDE && integral) {
            long k = (long) s;
            checkScalarFits(a.dtype, k);
            long[] v = a.valuesAsLongs();
            for (int i = 0; i < v.length; i++) {
                v[i] = apply(op, v[i], k);
            }
            return HeapArray.fromLongs(a.dtype, v, a.shape);
        }
        DType out = a.dtype == DType.FLOAT32 ? DType.FLOAT32 : DType.FLOAT64;
        if (out == DType.FLOAT32) {
            // NumPy casts the scalar to float32 first ([1f] + 16777217 is 16777216 there). Two floats' +, -, *, /
            // computed in double and rounded once to float is exactly the float32 operation.
            s = (float) s;
        }
        double[] v = a.valuesAsDoubles();
        for (int i = 0; i < v.length; i++) {
            v[i] = apply(op, v[i], s);
        }
        return HeapArray.fromDoubles(out, v, a.shape);
    }

    /**
     * An integer scalar is applied in the array's dtype, so one that dtype cannot hold would be wrapped before it is
     * used (uint8 - (-1) silently became + 255): refused, as NumPy 2 refuses it (NEP 50). Checked once per call,
     * not per element.
     */
    private static void checkScalarFits(DType dtype, long k) {
        final long min;
        final long max;
        switch (dtype) {
            case INT8:
                min = Byte.MIN_VALUE;
                max = Byte.MAX_VALUE;
                break;
            case UINT8:
                min = 0;
                max = 255;
                break;
            case INT16:
                min = Short.MIN_VALUE;
                max = Short.MAX_VALUE;
                break;
            case INT32:
                min = Integer.MIN_VALUE;
                max = Integer.MAX_VALUE;
                break;
            default:
                return; // INT64 holds every whole number below 2^53
        }
        if (k < min || k > max) {
            throw new IllegalArgumentException("scalar " + k + " is out of range for " + Conversions.article(dtype.name()) + " " + dtype + " array (" + min + ".."
                + max + "): the result would wrap around; use an array of a wider dtype");
        }
    }

    static HeapArray elementWise(NdArray a, NdArray b, Op op) {
        checkSameShape(a, b);
        a.checkAccessible();
        b.checkAccessible();
        DType out = promote(a.dtype, b.dtype, op);
        if (!out.isFloating()) {
            long[] x = a.valuesAsLongs();
            long[] y = b.valuesAsLongs();
            for (int i = 0; i < x.length; i++) {
                x[i] = apply(op, x[i], y[i]);
            }
            return HeapArray.fromLongs(out, x, a.shape);
        }
        double[] x = a.valuesAsDoubles();
        double[] y = b.valuesAsDoubles();
        for (int i = 0; i < x.length; i++) {
            x[i] = apply(op, x[i], y[i]);
        }
        return HeapArray.fromDoubles(out, x, a.shape);
    }

    /** NumPy's promotion for the types we have; true division always gives a float type. */
    static DType promote(DType a, DType b, Op op) {
        if (a.isFloating() || b.isFloating() || op == Op.DIVIDE) {
            boolean small = fitsFloat32(a) && fitsFloat32(b) && (a == DType.FLOAT32 || b == DType.FLOAT32);
            return small ? DType.FLOAT32 : DType.FLOAT64;
        }
        if (a == b) {
            return a;
        }
        if ((a == DType.UINT8 && b == DType.INT8) || (a == DType.INT8 && b == DType.UINT8)) {
            return DType.INT16;
        }
        DType wider = a.byteSize() >= b.byteSize() ? a : b;
        return wider == DType.UINT8 ? DType.INT16 : wider;
    }

    private static boolean fitsFloat32(DType t) {
        return t == DType.FLOAT32 || t == DType.INT8 || t == DType.UINT8 || t == DType.INT16;
    }

    private static long apply(Op op, long x, long y) {
        switch (op) {
            case ADD:
                return x + y;
            case SUBTRACT:
                return x - y;
            default:
                return x * y;
        }
    }

    private static double apply(Op op, double x, double y) {
        switch (op) {
            case ADD:
                return x + y;
            case SUBTRACT:
                return x - y;
            case MULTIPLY:
                return x * y;
            default:
                return x / y;
        }
    }
}
