package dev.sharray.reducers;

/** Primitive, shared and heap arrays: inline when small, as descriptors when shared or large. */
final class ArrayCodec {
    /** Inline encodings live in int-indexed buffers; bigger arrays must be shared. */
    static final long MAX_INLINE_BYTES = Integer.MAX_VALUE - 4096;

    private ArrayCodec() {
    }

    /** @return the handler for SharedArray / HeapArray, or {@code null} for other classes */
    static Reducers.Handler handler(Class<?> type) {
        return null;
    }

    static void writePrimitiveArray(Object array, ValueWriter out) {
        final byte tag = PrimitiveArrays.tagOf(array);
        final int n = PrimitiveArrays.length(array);
        final long bytes = (long) n * PrimitiveArrays.elementSize(tag);
        if (bytes > MAX_INLINE_BYTES) {
            throw new ReducerException("a " + bytes + "-byte " + array.getClass().getSimpleName()
                + " is too big to write inline; share it (a SharedArray, or a pool with maxBytes)");
        }
        out.writeByte(tag);
        out.writeInt(n);
        out.writePrimitiveElements(array, (int) bytes);
    }

    static Object read(byte tag, ValueReader in) {
        throw new MalformedDataException("shared arrays are not supported by this reader (tag " + tag + ")");
    }
}
