package dev.sharray;

/**
 * A whole file mapped read-write into this process. Unmapped only by an explicit {@link #unmap()}, never by
 * a finalizer or cleaner: the owner keeps the object strongly reachable until then.
 */
interface Mapping {
    /** @return native address of byte 0 of the file */
    long address();

    /** @return mapped length in bytes */
    long length();

    /**
     * Takes the mapping out of use: its pages at once, its addresses later (see {@link ReleasedRanges}); the
     * address must not be used afterwards. Called exactly once.
     */
    void unmap();

    /** @return which backing maps this file */
    Backing backing();

    /**
     * The exception for a mapping the kernel refused: the JDK and Chronicle say only "Map failed" (an
     * {@link OutOfMemoryError} among the causes, for {@code ENOMEM}), which names neither the file nor the limit.
     *
     * @param file   the file that was to be mapped
     * @param length the bytes that were to be mapped
     * @param e      what the mapping threw
     * @return an {@link java.io.UncheckedIOException} naming the file, the length and the limits that refuse a
     *     mapping, when {@code e} is such a refusal; naming the file, for an I/O failure (Chronicle's own among them);
     *     else {@code e} as an unchecked exception
     */
    static RuntimeException failed(java.nio.file.Path file, long length, Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                final long limit = ReleasedRanges.addressSpaceLimit();
                return new java.io.UncheckedIOException("cannot map " + file + " (" + length + " bytes): the kernel refused"
                    + " the mapping: this process is out of address space (its limit, ulimit -v: "
                    + (limit == Long.MAX_VALUE ? "unlimited" : limit + " bytes") + ") or of memory map entries"
                    + " (vm.max_map_count: " + MapEntries.LIMIT + ")",
                    e instanceof java.io.IOException io ? io : new java.io.IOException(e.getMessage(), e));
            }
        }
        if (e instanceof java.io.IOException io) {
            return new java.io.UncheckedIOException("cannot map " + file + ": " + io.getMessage(), io);
        }
        if (isChronicleIoFailure(e)) { // names no file
            return new java.io.UncheckedIOException("cannot map " + file + ": " + e, new java.io.IOException(e));
        }
        return e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }

    /** @return whether {@code e} is Chronicle's I/O failure (an mmap it could not make), by name: no Chronicle class loads */
    private static boolean isChronicleIoFailure(Throwable e) {
        for (Class<?> c = e.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals("net.openhft.chronicle.core.io.IORuntimeException")) {
                return true;
            }
        }
        return false;
    }

    /** Maps {@code length} bytes of an existing file with the requested backing. */
    static Mapping map(java.nio.file.Path file, long length, Backing backing) {
        if (backing == Backing.AGRONA) {
            return AgronaMapping.map(file, length);
        }
        return ChronicleMapping.map(file, length);
    }
}
