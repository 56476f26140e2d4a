package dev.sharray.reducers;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The JDK's everyday value classes: {@code Optional} and its primitive variants, {@code UUID}, {@code BigInteger},
 * {@code BigDecimal}, (through {@link TimeValues}) the {@code java.time} values, and (through {@link LocationValues})
 * {@code File} and {@code URI} ({@code Path}, an interface, is matched by the registry). Kept apart, and resolved by
 * class name, so a process that never meets one loads none of these classes.
 */
final class JdkValues {
    private JdkValues() {
    }

    /** @return the handler for exactly this JDK class, or {@code null} */
    static Reducers.Handler handler(Class<?> type) {
        final String name = type.getName();
        if (name.startsWith("java.time.")) {
            return TimeValues.handler(name);
        }
        switch (name) {
            case "java.util.Optional":
                return (v, out) -> {
                    out.writeByte(Tags.OPTIONAL);
                    out.writeValue(((Optional<?>) v).orElse(null)); // an Optional never holds null: NULL is empty
                };
            case "java.util.OptionalInt":
                return (v, out) -> {
                    final OptionalInt o = (OptionalInt) v;
                    out.writeByte(Tags.OPTIONAL_INT);
                    out.writeBoolean(o.isPresent());
                    if (o.isPresent()) {
                        out.writeInt(o.getAsInt());
                    }
                };
            case "java.util.OptionalLong":
                return (v, out) -> {
                    final OptionalLong o = (OptionalLong) v;
                    out.writeByte(Tags.OPTIONAL_LONG);
                    out.writeBoolean(o.isPresent());
                    if (o.isPresent()) {
                        out.writeLong(o.getAsLong());
                    }
                };
            case "java.util.OptionalDouble":
                return (v, out) -> {
                    final OptionalDouble o = (OptionalDouble) v;
                    out.writeByte(Tags.OPTIONAL_DOUBLE);
                    out.writeBoolean(o.isPresent());
                    if (o.isPresent()) {
                        out.writeDouble(o.getAsDouble());
                    }
                };
            case "java.util.UUID":
                return (v, out) -> {
                    out.writeByte(Tags.UUID);
                    out.writeLong(((UUID) v).getMostSignificantBits());
                    out.writeLong(((UUID) v).getLeastSignificantBits());
                };
            case "java.math.BigInteger":
                return (v, out) -> {
                    out.writeByte(Tags.BIG_INTEGER);
                    out.writeByteArrayBody(((BigInteger) v).toByteArray());
                };
            case "java.math.BigDecimal":
                return (v, out) -> {
                    final BigDecimal d = (BigDecimal) v;
                    out.writeByte(Tags.BIG_DECIMAL);
                    out.writeInt(d.scale());
                    out.writeByteArrayBody(d.unscaledValue().toByteArray());
                };
            case "java.io.File":
            case "java.net.URI":
                return LocationValues.handler(name);
            default:
                return null; // a subclass of BigInteger or BigDecimal is not theirs to rebuild
        }
    }

    /** Reads a value of one of this class's tags (tag already read). */
    static Object read(byte tag, ValueReader in) {
        switch (tag) {
            case Tags.OPTIONAL:
                return Optional.ofNullable(in.readValue());
            case Tags.OPTIONAL_INT:
                return in.readBoolean() ? OptionalInt.of(in.readInt()) : OptionalInt.empty();
            case Tags.OPTIONAL_LONG:
                return in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty();
            case Tags.OPTIONAL_DOUBLE:
                return in.readBoolean() ? OptionalDouble.of(in.readDouble()) : OptionalDouble.empty();
            case Tags.UUID: {
                final long most = in.readLong();
                return new UUID(most, in.readLong());
            }
            case Tags.BIG_INTEGER:
                return readBigInteger(in);
            case Tags.BIG_DECIMAL: {
                final int scale = in.readInt();
                return new BigDecimal(readBigInteger(in), scale); // any int scale is valid
            }
            default:
                throw new MalformedDataException("not a JDK value tag: " + tag);
        }
    }

    private static BigInteger readBigInteger(ValueReader in) {
        final int at = in.position();
        final byte[] bytes = in.readByteArrayBody(); // its length is checked against the bytes present first
        if (bytes.length == 0) {
            throw new MalformedDataException("a BigInteger of no bytes at offset " + at);
        }
        try {
            return new BigInteger(bytes);
        } catch (ArithmeticException e) {
            // more than Integer.MAX_VALUE bits: no BigInteger the sender could have had
            throw new MalformedDataException("a BigInteger of " + bytes.length + " bytes at offset " + at + ": "
                + e.getMessage(), e);
        }
    }
}
