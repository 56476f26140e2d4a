package dev.sharray.reducers;

/** Handlers for the classes written with a fixed tag: boxes, strings, arrays. */
final class BuiltIns {
    private static final Reducers.Handler BOOLEAN = (v, out) -> out.writeByte((Boolean) v ? Tags.TRUE : Tags.FALSE);
    private static final Reducers.Handler BYTE = (v, out) -> {
        out.writeByte(Tags.BYTE);
        out.writeByte((Byte) v);
    };
    private static final Reducers.Handler SHORT = (v, out) -> {
        out.writeByte(Tags.SHORT);
        out.writeShort((Short) v);
    };
    private static final Reducers.Handler CHAR = (v, out) -> {
        out.writeByte(Tags.CHAR);
        out.writeChar((Character) v);
    };
    private static final Reducers.Handler INT = (v, out) -> {
        out.writeByte(Tags.INT);
        out.writeInt((Integer) v);
    };
    private static final Reducers.Handler LONG = (v, out) -> {
        out.writeByte(Tags.LONG);
        out.writeLong((Long) v);
    };
    private static final Reducers.Handler FLOAT = (v, out) -> {
        out.writeByte(Tags.FLOAT);
        out.writeFloat((Float) v);
    };
    private static final Reducers.Handler DOUBLE = (v, out) -> {
        out.writeByte(Tags.DOUBLE);
        out.writeDouble((Double) v);
    };
    private static final Reducers.Handler STRING = (v, out) -> {
        out.writeByte(Tags.STRING);
        out.writeString((String) v);
    };
    private static final Reducers.Handler PRIMITIVE_ARRAY = ArrayCodec::writePrimitiveArray;

    private BuiltIns() {
    }

    /** @return the handler for exactly this class, or {@code null} */
    static Reducers.Handler exact(Class<?> type) {
        if (type == Integer.class) {
            return INT;
        } else if (type == Long.class) {
            return LONG;
        } else if (type == Double.class) {
            return DOUBLE;
        } else if (type == String.class) {
            return STRING;
        } else if (type == Boolean.class) {
            return BOOLEAN;
        } else if (type == Float.class) {
            return FLOAT;
        } else if (type == Short.class) {
            return SHORT;
        } else if (type == Byte.class) {
            return BYTE;
        } else if (type == Character.class) {
            return CHAR;
        } else if (type.isArray() && type.getComponentType().isPrimitive()) {
            return PRIMITIVE_ARRAY;
        }
        return ArrayCodec.handler(type);
    }
}
