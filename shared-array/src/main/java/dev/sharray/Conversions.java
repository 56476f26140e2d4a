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
            throw new UnsupportedOperationException("writing " + article(from.getSimpleName()) + " " + from.getSimpleName()
                + " into " + article(dtype.name()) + " " + dtype + " array can lose information; convert the value"
                + " explicitly and use " + setter(dtype));
        }
    }

    /** The setter, and the bulk copy, of the element type: "convert it" alone did not say to what. */
    private static String setter(DType dtype) {
        switch (dtype) {
            case INT8:
                return "setByte (copyFrom(byte[]) for a whole array)";
            case UINT8:
                return "setByte (copyFrom(byte[]) for a whole array), which stores the byte's bits: (byte) 200 stores 200";
            case INT16:
                return "setShort (copyFrom(short[]) for a whole array)";
            case INT32:
                return "setInt (copyFrom(int[]) for a whole array)";
            case INT64:
                return "setLong (copyFrom(long[]) for a whole array)";
            case FLOAT32:
                return "setFloat (copyFrom(float[]) for a whole array)";
            default:
                return "setDouble (copyFrom(double[]) for a whole array)";
        }
    }

    /** "an int", "an INT32 array", "a UINT8 array" (you-int), "a FLOAT64 array". */
    static String article(String word) {
        return word.startsWith("i") || word.startsWith("I") ? "an" : "a";
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
