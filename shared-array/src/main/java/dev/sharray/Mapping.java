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

    /** Maps {@code length} bytes of an existing file with the requested backing. */
    static Mapping map(java.nio.file.Path file, long length, Backing backing) {
        if (backing == Backing.AGRONA) {
            return AgronaMapping.map(file, length);
        }
        return ChronicleMapping.map(file, length);
    }
}
