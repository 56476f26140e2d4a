package dev.sharray.reducers;

/**
 * How values of one type cross a process boundary: written to the pool's queue by the sender and
 * rebuilt by the receiver (joblib's design: reducers are registered on the queue, not baked into the
 * types, so any type can be made to cross without touching it).
 *
 * <p>A reducer writes its value with the primitive methods of {@link ValueWriter} and nests other
 * values with {@link ValueWriter#writeValue(Object)}, which goes back through the registry: arrays
 * nested that way cross as descriptors, however deep they sit. {@link #read(ValueReader)} must read
 * exactly what {@link #write(Object, ValueWriter)} wrote, in the same order: the registry frames each
 * user value with its length, and a read that takes fewer or more bytes fails with a
 * {@link MalformedDataException} naming the reducer, instead of garbling the values after it.
 *
 * <p>A nested primitive array above the pool's {@code maxBytes} crosses as the pool's shared copy, and
 * {@code readValue} copies it back onto the receiver's heap: for a type of big arrays (a sparse matrix), hold them
 * as {@code SharedArray}s and write those, or read such a value with {@link ValueReader#readValueKeepingShared()}
 * (valid while the task runs), so that a worker maps them in place rather than copying them for every value it
 * rebuilds.
 *
 * <p>Both processes need the reducer: the pool re-creates registered reducers in its workers through
 * their public no-argument constructor, so implementations must have one and be stateless.
 *
 * @param <T> the type this reducer handles
 */
public interface Reducer<T> {

    /**
     * The type handled. Values of this exact class, and of subclasses or implementations when no
     * reducer for a more specific type is registered, are written by this reducer, whatever the order the
     * reducers were registered in; when reducers for two unrelated types (two interfaces) apply and neither
     * is more specific, the one registered last is used.
     *
     * @return the handled type
     */
    Class<T> type();

    /**
     * The stable name of this reducer on the wire; both processes must agree on it.
     *
     * @return the wire id, by default the handled type's binary name
     */
    default String id() {
        return type().getName();
    }

    /**
     * Writes {@code value}.
     *
     * @param value the value, never {@code null} (nulls are written by the registry)
     * @param out   where to write
     * @throws ReducerException for any failure: the registry turns a {@code RuntimeException} thrown here
     *     into one naming this reducer and the value's class
     */
    void write(T value, ValueWriter out);

    /**
     * Rebuilds a value written by {@link #write(Object, ValueWriter)}.
     *
     * @param in where to read from
     * @return the rebuilt value: an instance of {@link #type()}, or {@code null}; the registry refuses
     *     anything else with a {@link MalformedDataException} naming this reducer
     * @throws MalformedDataException when the bytes are not what {@code write} produces; the registry turns
     *     any other {@code RuntimeException} thrown here into one naming this reducer
     */
    T read(ValueReader in);
}
