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

    /** Per function class: its declared parameter type, once known. */
    private static final ClassValue<Parameter> PARAMETERS = new ClassValue<>() {
        @Override
        protected Parameter computeValue(Class<?> type) {
            return new Parameter();
        }
    };

    /** Lazily filled cache slot (a lambda's type needs an instance to be read). */
    private static final class Parameter {
        /** The declared type, or null when unknown; read after {@link #known}. */
        volatile Class<?> type;
        volatile boolean known;
    }

    private FunctionCodec() {
    }

    /**
     * A function ready to send: its bytes, its id when it is stateless (0 otherwise), and the id of the map
     * call it serves when workers may cache it for that call (0 otherwise).
     */
    static final class Encoded {
        final int id;
        final byte[] bytes;
        final int mapId;

        Encoded(int id, byte[] bytes) {
            this(id, bytes, 0);
        }

        private Encoded(int id, byte[] bytes, int mapId) {
            this.id = id;
            this.bytes = bytes;
            this.mapId = mapId;
        }

        /** @return this function as the one of map call {@code mapId}: sent once per worker, then by id */
        Encoded forMap(int mapId) {
            return new Encoded(id, bytes, mapId);
        }
    }

    /** Lazily filled cache slot of a stateless function class. */
    private static final class Stateless {
        volatile Encoded encoded;
    }

    /**
     * Whether {@code fn} declares a parameter that can hold a {@code SharedArray} ({@code NdArray},
     * {@code SharedArray} or {@code Object}): then a heap array the parent copied into shared memory reaches
     * it as that shared array, without the copy back to the heap. A lambda's type is the one it was
     * instantiated with ({@link SerializedLambda#getInstantiatedMethodType()}); a named class's is the
     * parameter of its non-bridge {@code apply} method (the erasure of a type variable). Unknown: false.
     * Computed once per class.
     */
    static boolean takesSharedArray(RemoteFunction<?, ?> fn) {
        final Class<?> type = parameterType(fn);
        if (type == null) {
            return false;
        }
        final String param = type.getName();
        return param.equals("dev.sharray.NdArray") || param.equals("dev.sharray.SharedArray")
            || param.equals("java.lang.Object");
    }

    /**
     * The declared parameter type of {@code fn.apply} (see {@link #takesSharedArray}), loaded (not initialised) by
     * the function's own class loader; computed once per class.
     *
     * @return the type, or null when unknown
     */
    static Class<?> parameterType(RemoteFunction<?, ?> fn) {
        final Parameter slot = PARAMETERS.get(fn.getClass());
        if (!slot.known) {
            final String name = parameterTypeName(fn);
            Class<?> type = null;
            if (name != null) {
                try {
                    type = Class.forName(name, false, fn.getClass().getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    // unknown: no check relies on it
                }
            }
            slot.type = type;
            slot.known = true;
        }
        return slot.type;
    }

    /**
     * Refuses, before it is sent, an argument that would arrive in the worker as a class the function's parameter
     * cannot hold (a TreeMap is rebuilt as a LinkedHashMap, a LinkedList as an ArrayList): it would fail there
     * with a ClassCastException, after the send.
     *
     * @throws dev.sharray.reducers.ReducerException naming the parameter's type and what to declare instead
     */
    static void checkArgumentArrives(RemoteFunction<?, ?> fn, Object arg, Reducers reducers) {
        if (arg instanceof java.util.Collection || arg instanceof java.util.Map) {
            final Class<?> type = parameterType(fn);
            if (type != null) {
                reducers.checkArrivesAs(type, arg, "the parameter of function " + fn.getClass().getName());
            }
        }
    }

    /** The binary name of the declared parameter type of {@code fn.apply}, or null when unknown. */
    static String parameterTypeName(RemoteFunction<?, ?> fn) {
        final Class<?> type = fn.getClass();
        if (type.isSynthetic() && type.getName().contains("$$Lambda")) {
            try {
                final java.lang.reflect.Method writeReplace = type.getDeclaredMethod("writeReplace");
                writeReplace.setAccessible(true);
                final Object replaced = writeReplace.invoke(fn);
                if (!(replaced instanceof SerializedLambda)) {
                    return null;
                }
                // e.g. "(Ldev/sharray/NdArray;)Ljava/lang/Double;": the one parameter, as instantiated
                final String desc = ((SerializedLambda) replaced).getInstantiatedMethodType();
                final int close = desc.indexOf(')');
                if (desc.length() < 4 || desc.charAt(0) != '(' || desc.charAt(1) != 'L' || close < 0
                    || desc.charAt(close - 1) != ';') {
                    return null; // a primitive array or other non-class type: it takes no SharedArray
                }
                return desc.substring(2, close - 1).replace('/', '.');
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null; // not readable (a lambda in a module closed to us): keep the heap copy
            }
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                if (m.getName().equals("apply") && m.getParameterCount() == 1 && !m.isBridge() && !m.isSynthetic()
                    && !Modifier.isStatic(m.getModifiers())) {
                    return m.getParameterTypes()[0].getName();
                }
            }
        }
        return null;
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
            out = new ReplacingOutputStream(bytes, reducers, sharing, fn.getClass());
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
     * @throws MalformedDataException when the bytes are corrupt, name a class that may not cross, or one this JVM
     *     cannot load
     */
    static RemoteFunction<?, ?> decode(DirectBuffer buffer, int offset, int length, Reducers reducers, ArrayOpening opening) {
        final Filter filter = new Filter(length);
        try (ResolvingInputStream in = new ResolvingInputStream(new DirectBufferInputStream(buffer, offset, length),
            reducers, opening, filter)) {
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
        } catch (ClassNotFoundException e) {
            // sound bytes naming a class this worker lacks (one defined in JShell or by a child class loader, or
            // a Builder.classpath without it): a classpath mismatch, not corruption
            throw new MalformedDataException(unloadable("function of class " + e.getMessage(), e), e);
        } catch (NoClassDefFoundError e) {
            // the function's class was found, but a class it needs (its superclass, say) was not
            throw new MalformedDataException(unloadable("function needing class "
                + String.valueOf(e.getMessage()).replace('/', '.'), e), e);
        } catch (IOException | RuntimeException | LinkageError e) {
            // corrupt bytes can make the JDK's own readResolve code fail in any way: all of it means "corrupt"
            throw new MalformedDataException("corrupt function bytes: " + e, e);
        }
    }

    /**
     * The message for a function or lambda whose class this worker cannot load: what is wrong is the workers'
     * classpath, and {@code ProcessPool.Builder.classpath} names it.
     *
     * @param what  the function and its class, as in "function of class a.B"
     * @param cause the loading failure
     */
    static String unloadable(String what, Throwable cause) {
        if (!(cause instanceof ClassNotFoundException || cause instanceof NoClassDefFoundError)) {
            return what + ", which cannot be loaded here: " + cause; // a bad class file, say: no classpath matter
        }
        return what + ", which cannot be loaded here: it is not on the workers' classpath (" + cause + "); put it in a"
            + " jar or folder of this JVM's classpath, or give the workers' classpath with ProcessPool.Builder.classpath";
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
     * Admits: functions ({@code RemoteFunction} implementations), the {@link EncodedLambda} and
     * {@code EncodedValue} placeholders, {@code Object[]} (a lambda's captured arguments) and, for one check each,
     * the values the reducers and {@link EncodedLambda#rebuild} rebuilt from placeholders. Classes that are not
     * {@code Serializable} are admitted too: they appear only as class references (a {@code Class} a function
     * holds) and serialization cannot instantiate them. Everything else, in particular every gadget class and
     * a raw {@code SerializedLambda} (the writer never sends one), is rejected.
     */
    static final class Filter implements ObjectInputFilter {
        private final long maxBytes;
        volatile String rejected;
        /**
         * The value {@link ResolvingInputStream#resolveObject} just rebuilt through the reducers: the
         * stream checks the class of a resolved replacement (JDK 17+ {@code checkResolve}), and that value
         * was never Java-deserialized, so its class (a box, a list, an array, ...) is admitted exactly once.
         */
        private Object resolved;

        /** Admits the class of {@code value} at the very next check (the stream's check of a resolved value). */
        void admitResolved(Object value) {
            resolved = value;
        }

        Filter(long maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            final Object value = resolved;
            if (value != null) {
                resolved = null;
                if (info.serialClass() == value.getClass()) {
                    return Status.ALLOWED;
                }
            }
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
            } else if (c == EncodedLambda.class || c == EncodedValue.class
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
        private final Class<?> functionClass;
        int replaced;
        SerializedLambda lambda;

        ReplacingOutputStream(ByteArrayOutputStream out, Reducers reducers, ArraySharing sharing, Class<?> functionClass)
            throws IOException {
            super(out);
            this.writer = new ValueWriter(reducers);
            this.sharing = sharing;
            this.functionClass = functionClass;
            enableReplaceObject(true);
        }

        /**
         * A value without a reducer that is the function's enclosing instance (a lambda's captured {@code this}, an
         * inner class's outer instance): say that, as the user sees no value of that class in their code.
         */
        private ReducerException namingCapturedThis(Object value, ReducerException e) {
            final String how;
            if (lambda != null && lambda.getCapturedArgCount() > 0 && lambda.getCapturedArg(0) == value
                && value.getClass().getName().equals(lambda.getCapturingClass().replace('/', '.'))) {
                how = "the lambda uses an instance field or method of the class it is written in";
            } else if (holdsAsOuterInstance(functionClass, value.getClass())) {
                how = functionClass.getName() + " is an inner or anonymous class in an instance context";
            } else {
                return namingCaptured(e);
            }
            return new ReducerException("the function captures 'this', an instance of " + value.getClass().getName()
                + " (" + how + "): a RemoteFunction must not capture an enclosing instance, which would cross to the"
                + " worker as a value; copy what it needs into local variables, or make it a static nested class ("
                + e.getMessage() + ")", e);
        }

        /**
         * Any other value without a reducer is one the function captures (a lambda's captured variable, a named
         * function's field), not the task's argument: say so, or the user looks for it among the arguments.
         */
        private ReducerException namingCaptured(ReducerException e) {
            final String function;
            if (lambda == null) {
                function = functionClass.getName();
            } else {
                // javac names a serializable lambda's body lambda$<enclosing method>$<hash>$<n>; a method reference
                // keeps the method's name
                final String impl = lambda.getImplMethodName();
                final int end = impl.indexOf('$', "lambda$".length());
                function = impl.startsWith("lambda$") && end > "lambda$".length()
                    ? "the lambda in " + lambda.getCapturingClass().replace('/', '.') + "." + impl.substring(7, end)
                    : "the method reference ::" + impl + " in " + lambda.getCapturingClass().replace('/', '.');
            }
            return new ReducerException(e.getMessage() + " (in a value that " + function + " captures: captured"
                + " variables and fields cross to the worker through the reducers, as arguments do)", e);
        }

        private static boolean holdsAsOuterInstance(Class<?> type, Class<?> outer) {
            for (Field f : type.getDeclaredFields()) {
                if (f.isSynthetic() && f.getType() == outer && !Modifier.isStatic(f.getModifiers())) {
                    return true; // javac's this$0
                }
            }
            return false;
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
                return EncodedLambda.of((SerializedLambda) obj); // its capturing class by name: see there
            }
            replaced++;
            writer.wrap(buffer, 0, sharing);
            try {
                writer.writeValue(obj);
            } catch (ReducerException e) {
                // Java serialization calls writeReplace before replaceObject: List.of(...), Set.of, Map.of
                // reach us as their serial proxy (java.util.CollSer). Turn the proxy back into the value
                // it stands for and encode that; rethrow when it is not such a proxy.
                final Object original = undoWriteReplace(obj);
                if (original == obj || original == null || original.getClass() == obj.getClass()) {
                    throw namingCapturedThis(obj, e);
                }
                writer.wrap(buffer, 0, sharing);
                writer.writeValue(original);
            }
            final byte[] bytes = new byte[writer.position()];
            buffer.getBytes(0, bytes);
            return new EncodedValue(bytes);
        }
    }

    /**
     * Rebuilds the value a serial proxy (the result of a JDK class's {@code writeReplace}) stands for, by a
     * round trip through Java serialization inside this process, in which every object but the proxy's
     * own serial form (the proxy class and {@code Object[]}) passes by identity. Only bytes written here,
     * from this process's own objects, are read back. Returns {@code proxy} when it cannot be rebuilt.
     */
    static Object undoWriteReplace(Object proxy) {
        if (!(proxy instanceof Serializable)) {
            return proxy;
        }
        final Class<?> proxyClass = proxy.getClass();
        final java.util.List<Object> refs = new java.util.ArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try {
            try (ObjectOutputStream out = new ObjectOutputStream(bytes) {
                {
                    enableReplaceObject(true);
                }

                @Override
                protected Object replaceObject(Object o) {
                    if (o.getClass() == proxyClass || o.getClass() == Object[].class) {
                        return o;
                    }
                    refs.add(o);
                    return new LocalRef(refs.size() - 1);
                }
            }) {
                out.writeObject(proxy);
            }
            try (ObjectInputStream in = new ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray())) {
                {
                    enableResolveObject(true);
                }

                @Override
                protected Object resolveObject(Object o) {
                    return o instanceof LocalRef ? refs.get(((LocalRef) o).index) : o;
                }
            }) {
                // no filter needed: these bytes were written just above from this process's own objects, and
                // nothing but the proxy's serial form is in them (every other object is a LocalRef)
                return in.readObject();
            }
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            return proxy;
        }
    }

    /** An object passed by identity through {@link #undoWriteReplace}. */
    private static final class LocalRef implements Serializable {
        private static final long serialVersionUID = 1L;
        final int index;

        LocalRef(int index) {
            this.index = index;
        }
    }

    /** Turns placeholders back into values through the reducers. */
    private static final class ResolvingInputStream extends ObjectInputStream {
        private final ValueReader reader;
        private final ArrayOpening opening;
        private final Filter filter;

        ResolvingInputStream(DirectBufferInputStream in, Reducers reducers, ArrayOpening opening, Filter filter)
            throws IOException {
            super(in);
            this.reader = new ValueReader(reducers);
            this.opening = opening;
            this.filter = filter;
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
                // the stream now filters the class of the replacement: admit this value (built by the
                // reducers, not by Java deserialization) for that one check
                filter.admitResolved(v);
                return v;
            }
            if (obj instanceof EncodedLambda) {
                final Object lambda = ((EncodedLambda) obj).rebuild(FunctionCodec.class.getClassLoader());
                filter.admitResolved(lambda); // a lambda its own class rebuilt, not a deserialized object
                return lambda;
            }
            return obj;
        }
    }
}
