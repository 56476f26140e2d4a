package dev.sharray.reducers;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An immutable registry of how values cross a process boundary. {@link #defaults()} handles
 * {@code null}, primitives and their boxes, {@code String}, enums, records (component by component),
 * {@code List}/{@code Set}/{@code Map} (rebuilt as {@code ArrayList}, {@code LinkedHashSet},
 * {@code LinkedHashMap}), primitive arrays, arrays of references ({@code String[]}, {@code double[][]},
 * {@code Item[]}, {@code Object[]}: any array whose element class crosses, or is {@code Object}, an interface or an
 * abstract class, rebuilt with the same component class), shared and heap arrays, {@code Optional},
 * {@code OptionalInt}/{@code OptionalLong}/{@code OptionalDouble}, {@code UUID}, {@code BigInteger},
 * {@code BigDecimal} (scale kept), and the {@code java.time} values {@code Instant}, {@code Duration},
 * {@code LocalDate}, {@code LocalTime}, {@code LocalDateTime}, {@code OffsetTime}, {@code OffsetDateTime},
 * {@code ZonedDateTime}, {@code ZoneId}/{@code ZoneOffset}, {@code Period}, {@code Year}, {@code YearMonth},
 * {@code MonthDay} ({@code DayOfWeek} and {@code Month} are enums), {@code Path} (of the default file system, any
 * class implementing it: a zip file system's path is refused; rebuilt with {@code Path.of}), {@code File} (that class,
 * not a subclass) and {@code URI}, each as its string, {@code Locale} (script, variant and extensions kept) and
 * {@code java.util.Date} (that class, not {@code java.sql.Timestamp}, as epoch millis); {@link #with(Reducer[])} adds
 * reducers for user types, which take precedence over the built-in handling (a reducer registered for one of the
 * classes above, or for a supertype of it, replaces the built-in handling of that class).
 *
 * <p>Values cross as trees, as copies: a list or small array that appears twice in a value arrives as two
 * equal, separate objects (a large array is shared once, but read back as one heap copy per appearance), and
 * a cycle, or nesting deeper than 64 levels, is refused on write. Each row of a {@code double[][]} is an array of
 * its own: one above the sharing policy's {@code maxBytes} is shared like any large primitive array. Collections
 * are rebuilt as the classes above at every level (the order of a {@code TreeMap} or {@code EnumSet} is kept, not
 * its class or comparator); a record component declared as a collection class those are not ({@code TreeMap},
 * {@code SortedSet}, {@code LinkedList}, ...) is refused on write, naming the component: declare it as
 * {@code Map}, {@code Set} or {@code List}, or register a reducer for its class.
 *
 * <p>Decoding never runs Java deserialization: it builds only the built-in types, records and enums
 * of the classpath (through their canonical constructor / constant name), arrays of classes it could have
 * written (the component class is loaded without being initialised), the JDK values above through their own
 * factories or parsers, which touch no file and no network (an invalid field, such as month 13, or string, such as a
 * path holding a NUL, is a {@link MalformedDataException}), and the types of registered
 * reducers.
 *
 * <p>Thread-safe.
 */
public final class Reducers {
    private static final Reducers DEFAULTS = new Reducers(List.of());
    /** Collections read from the wire start at most this large and grow with the elements actually read. */
    static final int PRESIZE_LIMIT = 4096;
    /**
     * Most keys of one decoded set or map that may share a hash code, unless all of them are of one class in
     * {@link #TREE_ORDERED}. A HashMap rebuilds keys that share one and are not Comparable in quadratic time
     * (20,000 two-element lists took 4.7 s), so more is refused as hash flooding. Legitimate keys spread: the
     * 10^6 records (x, y) of a 1000 x 1000 grid have at most 33 per code.
     */
    static final int MAX_SHARED_HASH = 256;
    /**
     * Key classes whose shared hash codes cost a HashMap only log time: it orders them in a tree by their own
     * {@code compareTo}, which agrees with {@code equals}. Their codes collide in legitimate data (a long packing
     * (x, y) hashes to x ^ y: a 512 x 512 grid has 512 keys per code), so they are never refused. A user's
     * Comparable class is not trusted to agree with {@code equals}: a tree of such keys can be scanned whole.
     */
    private static final Set<Class<?>> TREE_ORDERED = Set.of(String.class, Long.class, Integer.class, Short.class,
        Byte.class, Character.class, Double.class, Float.class);

    private final List<Reducer<?>> registered;
    private final Map<String, Reducer<?>> byId;
    private final Map<Class<?>, Handler> handlers = new ConcurrentHashMap<>();
    private final Map<Class<?>, RecordCodec> records = new ConcurrentHashMap<>();

    private Reducers(List<Reducer<?>> registered) {
        this.registered = List.copyOf(registered);
        final Map<String, Reducer<?>> ids = new LinkedHashMap<>();
        for (Reducer<?> r : registered) {
            ids.put(r.id(), r);
        }
        this.byId = Map.copyOf(ids);
    }

    /** @return the registry with the built-in reducers only */
    public static Reducers defaults() {
        return DEFAULTS;
    }

    /**
     * Returns a registry with {@code reducers} added; of reducers for the same type or with the same id, the
     * last one given wins (earlier ones, of this call or of the registry, are dropped).
     *
     * @param reducers user reducers
     * @return a new registry; this one is unchanged
     */
    public Reducers with(Reducer<?>... reducers) {
        Objects.requireNonNull(reducers, "reducers");
        for (Reducer<?> r : reducers) {
            Objects.requireNonNull(r, "a reducer is null");
            Objects.requireNonNull(r.type(), () -> r.getClass().getName() + ".type() is null");
            Objects.requireNonNull(r.id(), () -> r.getClass().getName() + ".id() is null");
        }
        final List<Reducer<?>> all = new ArrayList<>(registered);
        // one at a time, so the rule holds within this call too: two of one id would have the second read what
        // the first wrote
        for (Reducer<?> r : reducers) {
            all.removeIf(earlier -> earlier.type() == r.type() || earlier.id().equals(r.id()));
            all.add(r);
        }
        return new Reducers(all);
    }

    /** @return the user reducers registered, in registration order */
    public List<Reducer<?>> registered() {
        return registered;
    }

    /**
     * Encodes one value inline (no array sharing) into a new byte array: for tests, tools and small
     * values.
     *
     * @param value the value
     * @return its encoding
     */
    public byte[] toBytes(Object value) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter writer = new ValueWriter(this).wrap(buffer, 0, null);
        writer.writeValue(value);
        final byte[] bytes = new byte[writer.position()];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    /**
     * Decodes a value produced by {@link #toBytes(Object)}, checking that nothing trails it.
     *
     * @param bytes the encoding
     * @return the value
     * @throws MalformedDataException when {@code bytes} is not a valid encoding
     */
    public Object fromBytes(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        final ValueReader reader = new ValueReader(this).wrap(new UnsafeBuffer(bytes), 0, bytes.length, null);
        final Object v = reader.readValue();
        if (reader.remaining() != 0) {
            throw new MalformedDataException(reader.remaining() + " bytes trail the value");
        }
        return v;
    }

    /** Reads {@code n} values; the list grows as they arrive, never ahead of them (n comes from the wire). */
    private static List<Object> readValues(ValueReader in, int n) {
        final List<Object> values = new ArrayList<>(Math.min(n, PRESIZE_LIMIT));
        for (int i = 0; i < n; i++) {
            values.add(in.readValue());
        }
        return values;
    }

    /**
     * Refuses keys (every {@code stride}-th value from the first) more than {@link #MAX_SHARED_HASH} of which
     * share one hash code, unless those are all of one {@link #TREE_ORDERED} class, before any goes into a hash
     * table.
     */
    private static void requireSpreadHashes(List<Object> values, int stride, String kind) {
        final int n = values.size() / stride;
        final long[] hashThenIndex = new long[n];
        for (int i = 0; i < n; i++) {
            hashThenIndex[i] = (long) Objects.hashCode(values.get(i * stride)) << 32 | i;
        }
        Arrays.sort(hashThenIndex);
        for (int from = 0, to; from < n; from = to) {
            final int hash = (int) (hashThenIndex[from] >> 32);
            to = from + 1;
            while (to < n && (int) (hashThenIndex[to] >> 32) == hash) {
                to++;
            }
            if (to - from > MAX_SHARED_HASH && !allOneTreeOrderedClass(values, stride, hashThenIndex, from, to)) {
                throw new MalformedDataException("a " + kind + " of " + n + " keys of which more than "
                    + MAX_SHARED_HASH + " share the hash code " + hash + ": refused as hash flooding (it would"
                    + " take quadratic time to rebuild)");
            }
        }
    }

    /**
     * @return whether the keys at indices {@code sorted[from, to)} (low 32 bits) are all of one TREE_ORDERED class,
     *     but for at most one null: a key the tree cannot order (another class, a null) is searched for through the
     *     whole bin, and each duplicate of it again
     */
    private static boolean allOneTreeOrderedClass(List<Object> values, int stride, long[] sorted, int from, int to) {
        Class<?> type = null;
        boolean nullSeen = false;
        for (int i = from; i < to; i++) {
            final Object key = values.get((int) sorted[i] * stride);
            if (key == null) {
                if (nullSeen) {
                    return false;
                }
                nullSeen = true;
            } else if (type == null) {
                type = key.getClass();
                if (!TREE_ORDERED.contains(type)) {
                    return false;
                }
            } else if (key.getClass() != type) {
                return false;
            }
        }
        return true;
    }

    /** Writes the tag of {@code value} and its encoding. */
    void writeTagged(Object value, ValueWriter out) {
        if (value == null) {
            out.writeByte(Tags.NULL);
            return;
        }
        handler(value.getClass()).write(value, out);
    }

    private Handler handler(Class<?> type) {
        final Handler cached = handlers.get(type);
        return cached != null ? cached : resolveAndCache(type);
    }

    /**
     * Not computeIfAbsent: resolving an array class looks at its element class, which a recursive computeIfAbsent
     * on the same map may refuse. Two threads resolving one class at once get equal handlers.
     */
    private Handler resolveAndCache(Class<?> type) {
        final Handler resolved = resolve(type);
        final Handler raced = handlers.putIfAbsent(type, resolved);
        return raced != null ? raced : resolved;
    }

    /**
     * Whether this registry could write a {@code component[]}: the component is an array of primitives, or its
     * innermost element class is {@code Object}, an interface or an abstract class (each element is then checked
     * on its own), or a class a reducer, the built-in handling, a record or an enum writes.
     */
    boolean canWriteArrayOf(Class<?> component) {
        if (component.isPrimitive()) {
            return false; // an array of primitives has its own tag
        }
        Class<?> element = component;
        while (element.isArray()) {
            element = element.getComponentType();
        }
        if (element.isPrimitive() || element == Object.class || Modifier.isAbstract(element.getModifiers())) {
            return true;
        }
        try {
            return !(handler(element) instanceof Refusal);
        } catch (ReducerException e) {
            return false; // a record whose package is not open to us
        }
    }

    /**
     * The component class of an array read from the wire, loaded without being initialised.
     *
     * @throws MalformedDataException when no such class exists here, or this registry could not have written an
     *     array of it
     */
    Class<?> arrayComponentClass(String name) {
        final Class<?> component = loadClass(name);
        if (!canWriteArrayOf(component)) {
            throw new MalformedDataException("an array of " + component.getTypeName() + " cannot cross: no reducer"
                + " writes " + component.getTypeName());
        }
        return component;
    }

    private Handler resolve(Class<?> type) {
        for (int i = registered.size() - 1; i >= 0; i--) {
            if (registered.get(i).type() == type) {
                return userHandler(registered.get(i));
            }
        }
        final Handler builtIn = BuiltIns.exact(type);
        if (builtIn != null) {
            return builtIn;
        }
        final Reducer<?> inherited = mostSpecificFor(type);
        if (inherited != null) {
            return userHandler(inherited);
        }
        if (type.getClassLoader() == null) {
            // after the user reducers of supertypes (a registered Reducer<Temporal> still writes a LocalDate)
            final Handler jdk = JdkValues.handler(type);
            if (jdk != null) {
                return jdk;
            }
        }
        if (type.isArray()) { // of references: arrays of primitives were handled by BuiltIns.exact
            final Class<?> component = type.getComponentType();
            if (!canWriteArrayOf(component)) {
                return new Refusal(noReducerMessage(type));
            }
            return (v, out) -> ObjectArrays.write((Object[]) v, component, out);
        }
        if (type.isEnum() || (type.getSuperclass() != null && type.getSuperclass().isEnum())) {
            return (v, out) -> {
                out.writeByte(Tags.ENUM);
                out.writeString(((Enum<?>) v).getDeclaringClass().getName());
                out.writeString(((Enum<?>) v).name());
            };
        }
        if (type.isRecord()) {
            final RecordCodec codec;
            try {
                codec = record(type);
            } catch (IllegalStateException e) {
                throw new ReducerException(e.getMessage(), e);
            }
            return (v, out) -> {
                out.writeByte(Tags.RECORD);
                codec.write(v, out);
            };
        }
        if (java.nio.file.Path.class.isAssignableFrom(type)) {
            // by interface, once per class (the handler is cached by exact class, so no lookup gets slower): the
            // default file system's class (sun.nio.fs.UnixPath) is not public, and a zip file system's path is
            // refused on write with the reason. After records and enums, which keep their own handling.
            return LocationValues.PATH;
        }
        if (List.class.isAssignableFrom(type)) {
            return new CollectionHandler(ArrayList.class, (v, out) -> writeCollection(Tags.LIST, (Collection<?>) v, out));
        }
        if (Set.class.isAssignableFrom(type)) {
            return new CollectionHandler(LinkedHashSet.class, (v, out) -> writeCollection(Tags.SET, (Collection<?>) v, out));
        }
        if (Map.class.isAssignableFrom(type)) {
            return new CollectionHandler(LinkedHashMap.class, (v, out) -> {
                final Map<?, ?> m = (Map<?, ?>) v;
                final int size = m.size();
                out.writeByte(Tags.MAP);
                out.writeInt(size);
                int written = 0;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    out.writeValue(e.getKey());
                    out.writeValue(e.getValue());
                    written++;
                }
                checkUnchanged(m, size, written);
            });
        }
        return new Refusal(noReducerMessage(type));
    }

    /**
     * Why nothing handles {@code type}, with the advice that fits it. "Make it a record" is no advice for a JDK
     * class, an array is refused for its element class, and the registry alone does nothing until the pool has it.
     */
    static String noReducerMessage(Class<?> type) {
        if (type.isHidden()) {
            // a lambda or method reference (a java.util.function.Function, a Comparator, ...): no reducer fits
            return "no reducer for the lambda " + type.getName() + ": a lambda or method reference crosses only inside"
                + " the task's function: declare it as a RemoteFunction and capture it in the function you submit, which"
                + " then carries it along";
        }
        if (type.isArray()) {
            // only an array whose element class cannot cross is refused: the advice is about that class
            Class<?> element = type;
            while (element.isArray()) {
                element = element.getComponentType();
            }
            return "no reducer for " + type.getTypeName() + ": an array crosses when its element class does, and no"
                + " reducer handles " + element.getTypeName() + ": " + advice(element);
        }
        return "no reducer for " + type.getTypeName() + ": " + advice(type);
    }

    private static String advice(Class<?> type) {
        final String simple = type.getSimpleName().isEmpty() ? type.getName() : type.getSimpleName();
        final String register = "register a Reducer<" + simple + "> with Reducers.defaults().with(...) and give that"
            + " registry to the pool (ProcessPool.Builder.reducers)";
        for (Class<?> exactOnly : new Class<?>[] {java.util.Date.class, java.io.File.class}) {
            if (exactOnly.isAssignableFrom(type)) {
                // java.sql.Timestamp holds nanos beyond Date's millis: rebuilt as a Date, it would lose them
                return "only " + exactOnly.getName() + " itself crosses built in; a subclass would arrive as a plain "
                    + exactOnly.getSimpleName() + ", without what it adds: " + register;
            }
        }
        if (type.getClassLoader() == null || type.getClassLoader() == ClassLoader.getPlatformClassLoader()) {
            return register; // a JDK class: the user cannot make it a record
        }
        return "make it a record, or " + register;
    }

    /**
     * The registered reducer for a supertype or interface of {@code type} that no other applicable one is more
     * specific than (a Dog reducer, not an Animal one, for a Puppy, whatever the order they were registered in);
     * among several such (unrelated interfaces), the one registered last. {@code null} when none applies.
     */
    private Reducer<?> mostSpecificFor(Class<?> type) {
        for (int i = registered.size() - 1; i >= 0; i--) {
            final Class<?> candidate = registered.get(i).type();
            if (!candidate.isAssignableFrom(type)) {
                continue;
            }
            boolean dominated = false;
            for (Reducer<?> other : registered) {
                if (other.type() != candidate && candidate.isAssignableFrom(other.type())
                    && other.type().isAssignableFrom(type)) {
                    dominated = true;
                    break;
                }
            }
            if (!dominated) {
                return registered.get(i);
            }
        }
        return null;
    }

    /**
     * @return the class the built-in handling rebuilds a {@code List}, {@code Set} or {@code Map} of class
     *     {@code type} as, or {@code null} when such a value is not rebuilt by the built-in collection handling
     *     (a registered reducer, or a record or enum, writes it; or it is no collection)
     */
    Class<?> builtInCollectionClass(Class<?> type) {
        return handler(type) instanceof CollectionHandler c ? c.rebuiltAs() : null;
    }

    /**
     * Refuses, on the sending side, a collection that the other side would rebuild as a class {@code declared}
     * cannot hold: the built-in handling rebuilds a {@code TreeMap} as a {@code LinkedHashMap}, a
     * {@code LinkedList} as an {@code ArrayList}, so a receiver declared as the former would fail only after the
     * value was sent (with a {@code ClassCastException}, or in a record's constructor).
     *
     * @param declared the type that receives the value on the other side: a record component, a function's parameter
     * @param value    the value about to be sent
     * @param receiver names the receiver in the message, e.g. "component m of record Foo"
     * @throws ReducerException when the value would arrive as a class {@code declared} cannot hold
     */
    public void checkArrivesAs(Class<?> declared, Object value, String receiver) {
        if (!(value instanceof Collection) && !(value instanceof Map)) {
            return;
        }
        final Class<?> rebuilt = builtInCollectionClass(value.getClass());
        if (rebuilt != null && !declared.isAssignableFrom(rebuilt)) {
            throw new ReducerException(receiver + " is declared " + declared.getName() + ", but a "
                + value.getClass().getName() + " is rebuilt as a " + rebuilt.getName() + " on the other side: declare"
                + " it as " + (List.class.isAssignableFrom(rebuilt) ? "List" : Set.class.isAssignableFrom(rebuilt)
                ? "Set" : "Map") + ", or register a Reducer for " + value.getClass().getName());
        }
    }

    private RecordCodec record(Class<?> type) {
        return records.computeIfAbsent(type, RecordCodec::of);
    }

    @SuppressWarnings("unchecked")
    private static Handler userHandler(Reducer<?> reducer) {
        final Reducer<Object> r = (Reducer<Object>) reducer;
        final String id = r.id();
        return (v, out) -> {
            out.writeByte(Tags.USER);
            out.writeString(id);
            // the payload's length first: a reducer that reads less or more than it wrote is caught at its
            // own value, instead of shifting every value after it into garbage
            final int lengthAt = out.position();
            out.writeInt(0);
            try {
                r.write(v, out);
            } catch (ReducerException e) {
                throw e; // already says which value could not be written
            } catch (RuntimeException e) {
                // a bare NullPointerException from deep in user code would not say which reducer failed, or on what
                throw new ReducerException("reducer '" + id + "' (" + r.getClass().getName() + ") failed to write a "
                    + v.getClass().getName() + ": " + e, e);
            }
            out.buffer().putInt(lengthAt, out.position() - lengthAt - 4, java.nio.ByteOrder.LITTLE_ENDIAN);
        };
    }

    private static void writeCollection(byte tag, Collection<?> c, ValueWriter out) {
        final int size = c.size();
        out.writeByte(tag);
        out.writeInt(size);
        int written = 0;
        for (Object e : c) {
            out.writeValue(e);
            written++;
        }
        checkUnchanged(c, size, written);
    }

    /**
     * The receiver reads as many elements as the count written before them: one more or fewer (a concurrent
     * collection changed by another thread meanwhile) would garble everything after it, and fail there.
     */
    private static void checkUnchanged(Object collection, int size, int written) {
        if (written != size) {
            throw new ReducerException("a " + collection.getClass().getName() + " changed size while being written ("
                + size + " elements counted, " + written + " iterated): another thread changed it; send a copy");
        }
    }

    /** Reads a tag and the value it introduces. */
    Object readTagged(ValueReader in) {
        final int at = in.position();
        final byte tag = in.readByte();
        switch (tag) {
            case Tags.NULL: return null;
            case Tags.TRUE: return Boolean.TRUE;
            case Tags.FALSE: return Boolean.FALSE;
            case Tags.BYTE: return in.readByte();
            case Tags.SHORT: return in.readShort();
            case Tags.CHAR: return in.readChar();
            case Tags.INT: return in.readInt();
            case Tags.LONG: return in.readLong();
            case Tags.FLOAT: return in.readFloat();
            case Tags.DOUBLE: return in.readDouble();
            case Tags.STRING: return in.readString();
            case Tags.ENUM: return readEnum(in);
            case Tags.RECORD: return readRecord(in);
            case Tags.LIST: {
                final int n = in.readCount(1);
                // capacity from the wire is only a hint: a hostile count must not allocate ahead of the elements
                final List<Object> list = new ArrayList<>(Math.min(n, PRESIZE_LIMIT));
                for (int i = 0; i < n; i++) {
                    list.add(in.readValue());
                }
                return list;
            }
            case Tags.SET: {
                final int n = in.readCount(1);
                final Set<Object> set = new LinkedHashSet<>(Math.max(16, Math.min(n, PRESIZE_LIMIT) * 2));
                if (n <= MAX_SHARED_HASH) { // no more collisions than allowed: insert as read
                    for (int i = 0; i < n; i++) {
                        set.add(in.readValue());
                    }
                    return set;
                }
                final List<Object> elements = readValues(in, n);
                requireSpreadHashes(elements, 1, "set");
                set.addAll(elements);
                return set;
            }
            case Tags.MAP: {
                final int n = in.readCount(2);
                final Map<Object, Object> map = new LinkedHashMap<>(Math.max(16, Math.min(n, PRESIZE_LIMIT) * 2));
                if (n <= MAX_SHARED_HASH) {
                    for (int i = 0; i < n; i++) {
                        final Object k = in.readValue();
                        map.put(k, in.readValue());
                    }
                    return map;
                }
                final List<Object> entries = readValues(in, 2 * n); // key, value, key, value, ...
                requireSpreadHashes(entries, 2, "map");
                for (int i = 0; i < entries.size(); i += 2) {
                    map.put(entries.get(i), entries.get(i + 1));
                }
                return map;
            }
            case Tags.BOOLEAN_ARRAY:
            case Tags.BYTE_ARRAY:
            case Tags.SHORT_ARRAY:
            case Tags.CHAR_ARRAY:
            case Tags.INT_ARRAY:
            case Tags.LONG_ARRAY:
            case Tags.FLOAT_ARRAY:
            case Tags.DOUBLE_ARRAY:
                return in.readPrimitiveArray(tag);
            case Tags.SHARED_PRIMITIVE_ARRAY:
            case Tags.SHARED_ARRAY:
            case Tags.HEAP_ARRAY:
            case Tags.SHARED_HEAP_ARRAY:
                return ArrayCodec.read(tag, in);
            case Tags.OBJECT_ARRAY:
                return ObjectArrays.read(in, this);
            case Tags.OPTIONAL:
            case Tags.OPTIONAL_INT:
            case Tags.OPTIONAL_LONG:
            case Tags.OPTIONAL_DOUBLE:
            case Tags.UUID:
            case Tags.BIG_INTEGER:
            case Tags.BIG_DECIMAL:
            case Tags.LOCALE:
            case Tags.DATE:
                return JdkValues.read(tag, in);
            case Tags.INSTANT:
            case Tags.DURATION:
            case Tags.LOCAL_DATE:
            case Tags.LOCAL_TIME:
            case Tags.LOCAL_DATE_TIME:
            case Tags.OFFSET_TIME:
            case Tags.OFFSET_DATE_TIME:
            case Tags.ZONED_DATE_TIME:
            case Tags.ZONE_ID:
            case Tags.PERIOD:
            case Tags.YEAR:
            case Tags.YEAR_MONTH:
            case Tags.MONTH_DAY:
                return TimeValues.read(tag, in);
            case Tags.PATH:
            case Tags.FILE:
            case Tags.URI:
                return LocationValues.read(tag, in);
            case Tags.USER: {
                final String id = in.readString();
                final Reducer<?> r = id == null ? null : byId.get(id);
                if (r == null) {
                    throw new MalformedDataException("unknown reducer id '" + id + "' at offset " + at
                        + " (a user reducer must be registered in both processes)");
                }
                return readFramed(r, id, in);
            }
            default:
                throw new MalformedDataException("unknown tag " + tag + " at offset " + at);
        }
    }

    /** Reads a user reducer's value, which must take exactly the bytes its {@code write} framed. */
    private static Object readFramed(Reducer<?> r, String id, ValueReader in) {
        final int length = in.readInt();
        if (length < 0 || length > in.remaining()) {
            throw new MalformedDataException("reducer '" + id + "' wrote " + length + " bytes, " + in.remaining()
                + " remain");
        }
        final int end = in.position() + length;
        final int outerLimit = in.narrow(end);
        final Object value;
        try {
            value = r.read(in);
        } catch (MalformedDataException e) {
            throw new MalformedDataException("reducer '" + id + "' cannot read its " + length + " bytes: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // the decoder's contract is MalformedDataException for bytes it cannot turn into a value, whoever's code failed
            throw new MalformedDataException("reducer '" + id + "' (" + r.getClass().getName() + ") failed to read its "
                + length + " bytes: " + e, e);
        } finally {
            in.widen(outerLimit);
        }
        if (value != null && !r.type().isInstance(value)) {
            // erasure lets a read return anything: caught here, it names the reducer, not a ClassCastException later
            throw new MalformedDataException("reducer '" + id + "' read a " + value.getClass().getName() + ", not a "
                + r.type().getName());
        }
        if (in.position() != end) {
            throw new MalformedDataException("reducer '" + id + "' read " + (in.position() - end + length) + " of the "
                + length + " bytes its write wrote: its read must read exactly what its write writes");
        }
        return value;
    }

    private static Object readEnum(ValueReader in) {
        final Class<?> type = loadClass(in.readString());
        if (!type.isEnum()) {
            throw new MalformedDataException(type.getName() + " is not an enum");
        }
        final String name = in.readString();
        final Object[] constants;
        try {
            constants = type.getEnumConstants(); // initialises the class: its static code runs here
        } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
            throw new MalformedDataException("enum " + type.getName() + " cannot be initialised: " + e, e);
        }
        for (Object constant : constants) {
            if (((Enum<?>) constant).name().equals(name)) {
                return constant;
            }
        }
        throw new MalformedDataException("enum " + type.getName() + " has no constant " + name);
    }

    private Object readRecord(ValueReader in) {
        final Class<?> type = loadClass(in.readString());
        if (!type.isRecord()) {
            throw new MalformedDataException(type.getName() + " is not a record");
        }
        final RecordCodec codec;
        try {
            codec = record(type);
        } catch (IllegalStateException e) {
            throw new MalformedDataException(e.getMessage(), e);
        }
        return codec.read(in);
    }

    /** Loads without initialising: a class named by hostile input runs no static code unless it passes the checks. */
    static Class<?> loadClass(String name) {
        if (name == null || name.isEmpty() || name.length() > 1024) {
            throw new MalformedDataException("invalid class name");
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = Reducers.class.getClassLoader();
        }
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new MalformedDataException("class not found: " + name, e);
        }
    }

    /** Writes one value of a known class; resolved once per class and cached. */
    @FunctionalInterface
    interface Handler {
        void write(Object value, ValueWriter out);
    }

    /** What a class no reducer handles gets: a handler that refuses its values, with the reason. */
    private record Refusal(String message) implements Handler {
        @Override
        public void write(Object value, ValueWriter out) {
            throw new ReducerException(message);
        }
    }

    /** The built-in handling of a {@code List}, {@code Set} or {@code Map}: what it is rebuilt as on the other side. */
    private record CollectionHandler(Class<?> rebuiltAs, Handler writer) implements Handler {
        @Override
        public void write(Object value, ValueWriter out) {
            writer.write(value, out);
        }
    }
}
