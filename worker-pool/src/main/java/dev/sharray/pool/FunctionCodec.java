package dev.sharray.pool;

import dev.sharray.reducers.ArrayOpening;
import dev.sharray.reducers.ArraySharing;
import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.ReducerException;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.io.DirectBufferInputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Functions on the wire. A {@link RemoteFunction} is written with Java serialization, but only its
 * shell: {@code replaceObject} swaps every value it holds (a named class's fields, a lambda's captured
 * variables) for an {@link EncodedValue} written by the reducers, so arrays cross as descriptors and
 * nothing but functions and lambdas is Java-serialized. Reading runs under an {@link ObjectInputFilter}
 * that admits only those shapes (see {@link Filter}); anything else is rejected with a
 * {@link MalformedDataException} naming the class.
 *
 * <p>Functions that hold no state (non-capturing lambdas, classes without instance fields) are
 * serialized once per class and given a process-wide id, so the tiny-task path sends an id and the
 * worker reuses the function it decoded the first time.
 */
final class FunctionCodec {
    private static final AtomicInteger NEXT_ID = new AtomicInteger(1);
    /** Stateless functions, by class: their bytes and id, computed once. */
    private static final ClassValue<Stateless> STATELESS = new ClassValue<>() {
        @Override
        protected Stateless computeValue(Class<?> type) {
            return new Stateless();
        }
    };
    private static final ClassValue<Boolean> HAS_FIELDS = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        return Boolean.TRUE;
                    }
                }
            }
            return Boolean.FALSE;
        }
    };

    private FunctionCodec() {
    }

    /** A function ready to send: its bytes, and its id when it is stateless (0 otherwise). */
    static final class Encoded {
        final int id;
        final byte[] bytes;

        Encoded(int id, byte[] bytes) {
            this.id = id;
            this.bytes = bytes;
        }
    }

    /** Lazily filled cache slot of a stateless function class. */
    private static final class Stateless {
        volatile Encoded encoded;
    }

    /**
     * Encodes {@code fn}, or returns the cached encoding of its class when it holds no state.
     *
     * @throws ReducerException when a captured value has no reducer, or the function cannot be serialized
     */
    static Encoded encode(RemoteFunction<?, ?> fn, Reducers reducers, ArraySharing sharing) {
        final Stateless slot = STATELESS.get(fn.getClass());
        final Encoded cached = slot.encoded;
        if (cached != null) {
            return cached;
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        final ReplacingOutputStream out;
        try {
            out = new ReplacingOutputStream(bytes, reducers, sharing);
            out.writeObject(fn);
            out.flush();
        } catch (IOException e) {
            throw new ReducerException("cannot send function " + fn.getClass().getName() + ": " + e
                + " (a lambda must not capture a non-serializable 'this'; fields must be values the reducers handle)", e);
        }
        final boolean stateless = out.replaced == 0 && (out.lambda != null
            ? out.lambda.getCapturedArgCount() == 0
            : !HAS_FIELDS.get(fn.getClass()));
        if (!stateless) {
            return new Encoded(0, bytes.toByteArray());
        }
        final Encoded encoded = new Encoded(NEXT_ID.getAndIncrement(), bytes.toByteArray());
        slot.encoded = encoded;
        return encoded;
    }

    /**
     * Decodes a function under the filter.
     *
     * @throws MalformedDataException when the bytes are corrupt or name a class that may not cross
     */
    static RemoteFunction<?, ?> decode(DirectBuffer buffer, int offset, int length, Reducers reducers, ArrayOpening opening) {
        final Filter filter = new Filter(length);
        try (ResolvingInputStream in = new ResolvingInputStream(new DirectBufferInputStream(buffer, offset, length),
            reducers, opening)) {
            in.setObjectInputFilter(filter);
            final Object fn = in.readObject();
            if (!(fn instanceof RemoteFunction)) {
                throw new MalformedDataException("function bytes decode to " + (fn == null ? "null" : fn.getClass().getName())
                    + ", not a RemoteFunction");
            }
            return (RemoteFunction<?, ?>) fn;
        } catch (InvalidClassException e) {
            throw new MalformedDataException("function rejected: " + (filter.rejected != null
                ? "class " + filter.rejected + " may not be deserialized (only RemoteFunction implementations and lambdas cross; values go through the reducers)"
                : e.getMessage()), e);
        } catch (MalformedDataException e) {
            throw e;
        } catch (IOException | ClassNotFoundException | RuntimeException | LinkageError e) {
            // corrupt bytes can make the JDK's own readResolve code fail in any way: all of it means "corrupt"
            throw new MalformedDataException("corrupt function bytes: " + e, e);
        }
    }

    /**
     * Placeholder for a value inside a function: its reducer encoding, written as raw block data so
     * that no byte[] object passes through {@code replaceObject} or the filter.
     */
    static final class EncodedValue implements Serializable {
        private static final long serialVersionUID = 1L;
        transient byte[] bytes;

        EncodedValue(byte[] bytes) {
            this.bytes = bytes;
        }

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeInt(bytes.length);
            out.write(bytes);
        }

        private void readObject(ObjectInputStream in) throws IOException {
            final int n = in.readInt();
            if (n < 0) {
                throw new InvalidObjectException("negative encoded value length " + n);
            }
            // grow with what is really there: a hostile length costs no more memory than the stream holds
            final ByteArrayOutputStream collected = new ByteArrayOutputStream(Math.min(n, 1 << 16));
            final byte[] chunk = new byte[Math.min(n, 1 << 16)];
            for (int left = n; left > 0; ) {
                final int read = in.read(chunk, 0, Math.min(left, chunk.length));
                if (read < 0) {
                    throw new InvalidObjectException("encoded value truncated: " + left + " of " + n + " bytes missing");
                }
                collected.write(chunk, 0, read);
                left -= read;
            }
            bytes = collected.toByteArray();
        }
    }

    /**
     * Admits: functions ({@code RemoteFunction} implementations), {@code SerializedLambda}, the
     * {@code EncodedValue} placeholder and {@code Object[]} (a lambda's captured arguments). Classes that are not {@code Serializable} are admitted
     * too: they appear only as class references (a lambda's capturing class) and serialization cannot
     * instantiate them. Everything else, in particular every gadget class, is rejected.
     */
    static final class Filter implements ObjectInputFilter {
        private final long maxBytes;
        volatile String rejected;

        Filter(long maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.depth() > 32 || info.references() > 100_000 || info.streamBytes() > maxBytes
                || info.arrayLength() > maxBytes) {
                rejected = "(stream limits exceeded)";
                return Status.REJECTED;
            }
            final Class<?> c = info.serialClass();
            if (c == null) {
                return Status.UNDECIDED;
            }
            if (c.isArray()) {
                if (c == Object[].class) {
                    return Status.ALLOWED;
                }
            } else if (c == SerializedLambda.class || c == EncodedValue.class
                || RemoteFunction.class.isAssignableFrom(c) || !Serializable.class.isAssignableFrom(c)) {
                return Status.ALLOWED;
            }
            rejected = c.getName();
            return Status.REJECTED;
        }
    }

    /** Keeps functions, lambdas and strings; turns every other value into its reducer encoding. */
    private static final class ReplacingOutputStream extends ObjectOutputStream {
        private final ValueWriter writer;
        private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        private final ArraySharing sharing;
        int replaced;
        SerializedLambda lambda;

        ReplacingOutputStream(ByteArrayOutputStream out, Reducers reducers, ArraySharing sharing) throws IOException {
            super(out);
            this.writer = new ValueWriter(reducers);
            this.sharing = sharing;
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) {
            if (obj instanceof RemoteFunction || obj instanceof String || obj.getClass() == Object[].class) {
                return obj;
            }
            if (obj instanceof SerializedLambda) {
                if (lambda == null) {
                    lambda = (SerializedLambda) obj;
                }
                return obj;
            }
            replaced++;
            writer.wrap(buffer, 0, sharing);
            writer.writeValue(obj);
            final byte[] bytes = new byte[writer.position()];
            buffer.getBytes(0, bytes);
            return new EncodedValue(bytes);
        }
    }

    /** Turns placeholders back into values through the reducers. */
    private static final class ResolvingInputStream extends ObjectInputStream {
        private final ValueReader reader;
        private final ArrayOpening opening;

        ResolvingInputStream(DirectBufferInputStream in, Reducers reducers, ArrayOpening opening) throws IOException {
            super(in);
            this.reader = new ValueReader(reducers);
            this.opening = opening;
            enableResolveObject(true);
        }

        @Override
        protected Object resolveObject(Object obj) {
            if (obj instanceof EncodedValue) {
                final byte[] bytes = ((EncodedValue) obj).bytes;
                if (bytes == null) {
                    throw new MalformedDataException("empty encoded value in function");
                }
                reader.wrap(new UnsafeBuffer(bytes), 0, bytes.length, opening);
                final Object v = reader.readValue();
                if (reader.remaining() != 0) {
                    throw new MalformedDataException(reader.remaining() + " bytes trail a value in function");
                }
                return v;
            }
            return obj;
        }
    }
}
