package dev.sharray;

import java.util.Arrays;

/** Element-wise arithmetic with NumPy-like result dtypes; every result is a fresh {@link HeapArray}. */
final class Arithmetic {
    enum Op { ADD, SUBTRACT, MULTIPLY, DIVIDE }

    private Arithmetic() {
    }

    static void checkSameShape(NdArray a, NdArray b) {
        if (!Arrays.equals(a.shape, b.shape)) {
            throw new IllegalArgumentException("shapes differ: " + Shapes.tuple(a.shape) + " and " + Shapes.tuple(b.shape)
                + " (no broadcasting)");
        }
    }

    static HeapArray scalar(NdArray a, double s, Op op) {
        a.checkAccessible();
        boolean integral = s == Math.rint(s) && Math.abs(s) < 0x1p53;
        if (!a.dtype.isFloating() && op != Op.DIVIDE && integral) {
            long[] v = a.valuesAsLongs();
            long k = (long) s;
            for (int i = 0; i < v.length; i++) {
                v[i] = apply(op, v[i], k);
            }
            return HeapArray.fromLongs(a.dtype, v, a.shape);
        }
        DType out = a.dtype == DType.FLOAT32 ? DType.FLOAT32 : DType.FLOAT64;
        double[] v = a.valuesAsDoubles();
        for (int i = 0; i < v.length; i++) {
            v[i] = apply(op, v[i], s);
        }
        return HeapArray.fromDoubles(out, v, a.shape);
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
