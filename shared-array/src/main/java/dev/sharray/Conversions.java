package dev.sharray;

/**
 * Which typed accessors a dtype allows. Reads widen losslessly (as Java's primitive widening, minus
 * int/long to float/double); writes only store values the dtype can hold exactly. Anything else is a
 * clear {@link UnsupportedOperationException}. UINT8 reads as {@code byte} give the raw bits.
 */
final class Conversions {
    private Conversions() {
    }

    static void checkRead(DType dtype, Class<?> to) {
        if (!canRead(dtype, to)) {
            throw new UnsupportedOperationException("reading " + dtype + " as " + to.getSimpleName()
                + " can lose information; use an accessor of a wider type (e.g. " + widest(dtype) + ")");
        }
    }

    static void checkWrite(DType dtype, Class<?> from) {
        if (!canWrite(dtype, from)) {
            throw new UnsupportedOperationException("writing a " + from.getSimpleName() + " into a " + dtype
                + " array can lose information; convert it explicitly first");
        }
    }

    static boolean canRead(DType dtype, Class<?> to) {
        switch (dtype) {
            case INT8:
            case UINT8:
                return true;
            case INT16:
                return to != byte.class;
            case INT32:
                return to == int.class || to == long.class || to == double.class;
            case INT64:
                return to == long.class;
            case FLOAT32:
                return to == float.class || to == double.class;
            case FLOAT64:
                return to == double.class;
            default:
                return false;
        }
    }

    static boolean canWrite(DType dtype, Class<?> from) {
        switch (dtype) {
            case INT8:
            case UINT8:
                return from == byte.class;
            case INT16:
                return from == byte.class || from == short.class;
            case INT32:
                return from == byte.class || from == short.class || from == int.class;
            case INT64:
                return from != float.class && from != double.class;
            case FLOAT32:
                return from == byte.class || from == short.class || from == float.class;
            case FLOAT64:
                return from != long.class;
            default:
                return false;
        }
    }

    private static String widest(DType dtype) {
        return dtype.isFloating() ? "getDouble" : dtype == DType.INT64 ? "getLong" : "getLong/getDouble";
    }
}
