package dev.sharray.reducers;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.HeapArray;
import dev.sharray.InvalidDescriptorException;
import dev.sharray.SharedArray;

/**
 * Primitive, shared and heap arrays: inline when small, as descriptors when shared or large. Kept
 * apart from the other built-ins so a process that never meets an array never loads the array classes.
 */
final class ArrayCodec {
    /** Inline encodings live in int-indexed buffers; bigger arrays must be shared. */
    static final long MAX_INLINE_BYTES = Integer.MAX_VALUE - 4096;
    private static final DType[] DTYPES = DType.values();

    private ArrayCodec() {
    }

    /** @return the handler for SharedArray / HeapArray, or {@code null} for other classes */
    static Reducers.Handler handler(Class<?> type) {
        final String name = type.getName();
        // compare by name: a class literal would load the array classes into every process
        if (name.equals("dev.sharray.SharedArray")) {
            return (v, out) -> writeShared((SharedArray) v, out);
        } else if (name.equals("dev.sharray.HeapArray")) {
            return (v, out) -> writeHeap((HeapArray) v, out);
        }
        return null;
    }

    static void writePrimitiveArray(Object array, ValueWriter out) {
        final byte tag = PrimitiveArrays.tagOf(array);
        final int n = PrimitiveArrays.length(array);
        final long bytes = (long) n * PrimitiveArrays.elementSize(tag);
        final ArraySharing sharing = out.sharing();
        if (sharing != null && bytes > sharing.maxBytes() && tag != Tags.BOOLEAN_ARRAY && tag != Tags.CHAR_ARRAY) {
            final Descriptor d = sharing.shareCopy(array);
            out.writeByte(Tags.SHARED_PRIMITIVE_ARRAY);
            out.writeByte(tag);
            out.writeByteArrayBody(d.toBytes());
            return;
        }
        if (bytes > MAX_INLINE_BYTES) {
            throw new ReducerException("a " + bytes + "-byte " + array.getClass().getSimpleName()
                + " is too big to write inline; share it (a SharedArray, or a pool with maxBytes)");
        }
        out.writeByte(tag);
        out.writeInt(n);
        out.writePrimitiveElements(array, (int) bytes);
    }

    private static void writeShared(SharedArray array, ValueWriter out) {
        final ArraySharing sharing = out.sharing();
        if (sharing == null) {
            throw new ReducerException("a SharedArray can only be written with an ArraySharing policy "
                + "(it crosses as a descriptor and must stay alive while in flight)");
        }
        out.writeByte(Tags.SHARED_ARRAY);
        out.writeByteArrayBody(sharing.share(array).toBytes());
    }

    private static void writeHeap(HeapArray array, ValueWriter out) {
        final ArraySharing sharing = out.sharing();
        final long bytes = array.byteSize();
        if (sharing != null && bytes > sharing.maxBytes()) {
            out.writeByte(Tags.SHARED_HEAP_ARRAY);
            out.writeByteArrayBody(sharing.shareCopy(array).toBytes());
            return;
        }
        if (bytes > MAX_INLINE_BYTES) {
            throw new ReducerException("a " + bytes + "-byte HeapArray is too big to write inline; share it");
        }
        out.writeByte(Tags.HEAP_ARRAY);
        out.writeByte((byte) array.dtype().ordinal());
        final long[] shape = array.shape();
        out.writeInt(shape.length);
        for (long s : shape) {
            out.writeLong(s);
        }
        final Object data = array.data();
        out.writeInt(PrimitiveArrays.length(data));
        out.writePrimitiveElements(data, (int) bytes);
    }

    static Object read(byte tag, ValueReader in) {
        switch (tag) {
            case Tags.SHARED_ARRAY:
                return open(requireOpening(in), readDescriptor(in));
            case Tags.SHARED_PRIMITIVE_ARRAY: {
                final byte elementTag = in.readByte();
                final Descriptor d = readDescriptor(in);
                requireOpening(in);
                try (SharedArray a = open(SharedArray::open, d)) {
                    if (a.ndim() != 1 || a.dtype() != dtypeOfTag(elementTag)) {
                        throw new MalformedDataException("shared " + a.dtype() + " array of " + a.ndim()
                            + " dimensions does not match array tag " + elementTag);
                    }
                    requireDense(a);
                    return toJavaArray(a);
                }
            }
            case Tags.SHARED_HEAP_ARRAY: {
                final Descriptor d = readDescriptor(in);
                requireOpening(in);
                try (SharedArray a = open(SharedArray::open, d)) {
                    requireDense(a);
                    return heapOf(a.dtype(), toJavaArray(a), a.shape());
                }
            }
            case Tags.HEAP_ARRAY:
                return readInlineHeap(in);
            default:
                throw new MalformedDataException("not an array tag: " + tag);
        }
    }

    /**
     * The shared copy of a primitive or heap array (tag already read), opened and returned as it is,
     * without the copy back to the heap: see {@link ValueReader#readValueKeepingShared()}.
     */
    static SharedArray openSharedCopy(byte tag, ValueReader in) {
        if (tag == Tags.SHARED_PRIMITIVE_ARRAY) {
            final byte elementTag = in.readByte();
            final DType dtype = dtypeOfTag(elementTag);
            final SharedArray a = open(requireOpening(in), readDescriptor(in));
            if (a.ndim() != 1 || a.dtype() != dtype) {
                // the opening holds it and releases it with the message
                throw new MalformedDataException("shared " + a.dtype() + " array of " + a.ndim()
                    + " dimensions does not match array tag " + elementTag);
            }
            return requireDense(a);
        }
        if (tag == Tags.SHARED_HEAP_ARRAY) {
            return requireDense(open(requireOpening(in), readDescriptor(in)));
        }
        throw new MalformedDataException("not a shared copy tag: " + tag);
    }

    private static HeapArray readInlineHeap(ValueReader in) {
        final int ordinal = in.readByte();
        if (ordinal < 0 || ordinal >= DTYPES.length) {
            throw new MalformedDataException("unknown dtype " + ordinal);
        }
        final DType dtype = DTYPES[ordinal];
        final int ndim = in.readCount(8);
        if (ndim > Descriptor.MAX_NDIM) {
            throw new MalformedDataException(ndim + " dimensions");
        }
        final long[] shape = new long[ndim];
        long size = 1;
        for (int i = 0; i < ndim; i++) {
            shape[i] = in.readLong();
            if (shape[i] < 0) {
                throw new MalformedDataException("negative dimension " + shape[i]);
            }
            size = Math.multiplyHigh(size, shape[i]) != 0 ? -1 : size * shape[i];
            if (size < 0) {
                throw new MalformedDataException("shape overflows");
            }
        }
        final byte arrayTag = tagOfDtype(dtype);
        final Object data = in.readPrimitiveArray(arrayTag);
        if (PrimitiveArrays.length(data) != size) {
            throw new MalformedDataException("heap array data has " + PrimitiveArrays.length(data)
                + " elements, shape needs " + size);
        }
        try {
            return heapOf(dtype, data, shape);
        } catch (IllegalArgumentException e) {
            // HeapArray's own shape check (an empty shape whose other dimensions overflow 2^63 bytes): the
            // decoder's contract is MalformedDataException
            throw new MalformedDataException("heap array shape: " + e.getMessage(), e);
        }
    }

    private static HeapArray heapOf(DType dtype, Object data, long[] shape) {
        if (shape.length == 0) {
            // HeapArray.of(data) without a shape means 1-D: a 0-d array (one element) must keep its shape ()
            final HeapArray scalar = HeapArray.zeros(dtype);
            PrimitiveArrays.copyInto(scalar, data);
            return scalar;
        }
        if (data instanceof double[]) {
            return HeapArray.of((double[]) data, shape);
        } else if (data instanceof float[]) {
            return HeapArray.of((float[]) data, shape);
        } else if (data instanceof long[]) {
            return HeapArray.of((long[]) data, shape);
        } else if (data instanceof int[]) {
            return HeapArray.of((int[]) data, shape);
        } else if (data instanceof short[]) {
            return HeapArray.of((short[]) data, shape);
        }
        return HeapArray.ofBytes(dtype, (byte[]) data, shape);
    }

    /**
     * A sender's shared copy is always a dense, row-major array, so its elements are bytes the file really
     * holds. Anything else (a zero or repeated stride) is hostile: it could claim billions of elements over
     * one real one, and copying them to the heap would exhaust it.
     */
    private static SharedArray requireDense(SharedArray a) {
        if (!a.isContiguous()) {
            throw new MalformedDataException("a shared copy must be a dense array, but " + a.descriptor()
                + " is not dense");
        }
        return a;
    }

    private static Object toJavaArray(SharedArray a) {
        if (a.size() > Integer.MAX_VALUE - 8) {
            throw new MalformedDataException("a shared array of " + a.size() + " elements does not fit a Java array");
        }
        switch (a.dtype()) {
            case FLOAT64: return a.toDoubleArray();
            case FLOAT32: return a.toFloatArray();
            case INT64: return a.toLongArray();
            case INT32: return a.toIntArray();
            case INT16: return a.toShortArray();
            default: return a.toByteArray();
        }
    }

    private static byte tagOfDtype(DType dtype) {
        switch (dtype) {
            case FLOAT64: return Tags.DOUBLE_ARRAY;
            case FLOAT32: return Tags.FLOAT_ARRAY;
            case INT64: return Tags.LONG_ARRAY;
            case INT32: return Tags.INT_ARRAY;
            case INT16: return Tags.SHORT_ARRAY;
            default: return Tags.BYTE_ARRAY;
        }
    }

    private static DType dtypeOfTag(byte tag) {
        switch (tag) {
            case Tags.DOUBLE_ARRAY: return DType.FLOAT64;
            case Tags.FLOAT_ARRAY: return DType.FLOAT32;
            case Tags.LONG_ARRAY: return DType.INT64;
            case Tags.INT_ARRAY: return DType.INT32;
            case Tags.SHORT_ARRAY: return DType.INT16;
            case Tags.BYTE_ARRAY: return DType.INT8;
            default: throw new MalformedDataException("array tag " + tag + " cannot be shared");
        }
    }

    private static ArrayOpening requireOpening(ValueReader in) {
        final ArrayOpening opening = in.opening();
        if (opening == null) {
            throw new MalformedDataException("a shared array arrived where none may be opened");
        }
        return opening;
    }

    /**
     * Opens a descriptor read from a message. One that parses but names no array this process may open (outside
     * the sharray folders, a view past its file) is malformed data, as the bytes that made it.
     */
    private static SharedArray open(ArrayOpening opening, Descriptor d) {
        try {
            return opening.open(d);
        } catch (InvalidDescriptorException e) {
            throw new MalformedDataException("invalid descriptor: " + e.getMessage(), e);
        }
    }

    private static Descriptor readDescriptor(ValueReader in) {
        final byte[] bytes = in.readByteArrayBody();
        try {
            return Descriptor.fromBytes(bytes);
        } catch (InvalidDescriptorException e) {
            throw new MalformedDataException("invalid descriptor: " + e.getMessage(), e);
        }
    }
}
