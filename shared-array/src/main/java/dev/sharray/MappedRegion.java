package dev.sharray;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/**
 * The first bytes of a file mapped read-write and shared into this process, by address. Unmapped only by
 * {@link #unmap()}, never by a garbage collector or cleaner: the owner keeps this object until then.
 *
 * <p>From JDK 22 the mapping is made through {@code FileChannel.map(mode, offset, size, Arena)} when this jar was
 * built on JDK 22 or later. The older {@code MappedByteBuffer} route builds a reflective accessor for a JDK-internal
 * constructor on a JVM's first mapping: 20–25 ms on JDK 25 (JEP 416), paid again by every worker JVM a pool
 * starts. The newer route takes 3.5–5.5 ms for the same first mapping.
 *
 * <p>On the newer route a released array's range is freed through the C library ({@link ReleasedRanges}), not by
 * the JDK, so the JDK's "mapped" buffer pool ({@code BufferPoolMXBean}) keeps counting it.
 */
public final class MappedRegion {
    /** Largest region mapped ({@code int} buffer indices on the older route; the same on both, so no JDK maps more). */
    public static final long MAX_LENGTH = Integer.MAX_VALUE;

    private static final SegmentMapper SEGMENTS = SegmentMapper.find();
    /** Buffers the JDK returned with a bad address (see {@link #requireMappedAddress}), kept from their cleaners. */
    private static final java.util.Queue<MappedByteBuffer> UNMAPPABLE = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** The smallest page of the platforms sharray runs on: every mapping's address is a multiple of it. */
    private static final long PAGE = 4096;
    /**
     * {@code sun.nio.ch.FileChannelImpl.setUninterruptible()} (exported by sharray's JVM flags), or null without it.
     * An interrupt that lands while the JDK maps a file makes {@code FileChannel.map} throw
     * {@code ClosedByInterruptException} after the mmap succeeded, dropping the only record of the mapping: it stayed
     * mapped, with its file (deleted or not), until the JVM's exit, and the create or open that
     * {@link InterruptsSetAside} then ran again mapped the file anew.
     */
    private static final MethodHandle SET_UNINTERRUPTIBLE = findSetUninterruptible();

    private final long address;
    private final long length;
    /** The older route's buffer, through which it is unmapped; null on the newer route. */
    private final MappedByteBuffer buffer;
    /** The newer route's {@code Arena}, closed to unmap; null on the older route. */
    private final AutoCloseable arena;
    private boolean unmapped;

    MappedRegion(long address, long length, MappedByteBuffer buffer, AutoCloseable arena) {
        this.address = address;
        this.length = length;
        this.buffer = buffer;
        this.arena = arena;
    }

    /**
     * Maps {@code [0, length)} of an open file read-write and shared. A shorter file is first grown to {@code length}
     * (the JDK does so on both routes), so no page of the region lies past the file's end. The channel is made
     * uninterruptible for good (with sharray's JVM flags): an interrupt no longer closes it, here or later.
     *
     * @param channel the file, open for reading and writing; it may be closed once this returns
     * @param length  bytes to map, 1 to {@link #MAX_LENGTH}
     * @return the mapped region
     * @throws IOException              when the kernel refuses the mapping
     * @throws IllegalArgumentException when {@code length} is out of range
     */
    public static MappedRegion map(FileChannel channel, long length) throws IOException {
        if (length <= 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("a mapped region is 1 to " + MAX_LENGTH + " bytes, not " + length);
        }
        uninterruptible(channel);
        if (SEGMENTS != null) {
            // a bad address's arena is left open and unreachable: its close would unmap that address (a shared arena is
            // never closed by the GC)
            final MappedRegion region = SEGMENTS.map(channel, length);
            requireMappedAddress(region.address, length);
            return region;
        }
        final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        final long address = BufferUtil.address(mapped);
        try {
            requireMappedAddress(address, length);
        } catch (IOException e) {
            // its cleaner would unmap the bad address once the GC found the buffer, fail, and end the JVM (JDK 17):
            // the GC never finds it (a few bytes, kept once in a very long while)
            UNMAPPABLE.add(mapped);
            throw e;
        }
        return new MappedRegion(address, length, mapped, null);
    }

    private static MethodHandle findSetUninterruptible() {
        try {
            final Class<?> impl = Class.forName("sun.nio.ch.FileChannelImpl");
            return MethodHandles.lookup().findVirtual(impl, "setUninterruptible", MethodType.methodType(void.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // not exported here: an interrupt during a map may leave that mapping behind, as it did
        }
    }

    /** Keeps an interrupt from closing {@code channel} while it maps: the mapping would be lost (see above). */
    private static void uninterruptible(FileChannel channel) throws IOException {
        if (SET_UNINTERRUPTIBLE == null || !SET_UNINTERRUPTIBLE.type().parameterType(0).isInstance(channel)) {
            return;
        }
        try {
            SET_UNINTERRUPTIBLE.invoke(channel);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("cannot make " + channel + " uninterruptible", e);
        }
    }

    /**
     * The JDK passes on some of mmap's failures as the address: an interrupted call (EINTR, which the kernel gives only
     * under a tracer's fault injection) came back as a mapping at -3, and the first access ended the JVM (SIGSEGV).
     *
     * @param address what the JDK returned as the mapping's address
     * @param length  the mapping's length
     * @throws IOException unless {@code address} is a page-aligned address above 0
     */
    static void requireMappedAddress(long address, long length) throws IOException {
        if (address <= 0 || (address & (PAGE - 1)) != 0) {
            throw new IOException("mmap of " + length + " bytes gave no mapping (the JDK returned " + address
                + " as its address: an interrupted or failed call)");
        }
    }

    /** @return whether regions are mapped through {@code FileChannel.map(..., Arena)} in this JVM (JDK 22+) */
    public static boolean mapsThroughArenas() {
        return SEGMENTS != null;
    }

    /** @return the address of the region's first byte */
    public long address() {
        return address;
    }

    /** @return the region's length in bytes */
    public long length() {
        return length;
    }

    /**
     * Unmaps the region now. No thread may touch it afterwards: unmapped memory faults, and the addresses may
     * be mapped again by anything.
     *
     * @throws IllegalStateException when it was already unmapped
     */
    public void unmap() {
        markUnmapped();
        if (buffer != null) {
            IoUtil.unmap(buffer);
        } else {
            try {
                arena.close(); // a shared arena's close is a handshake with every thread: ~80 µs
            } catch (Exception e) {
                throw new IllegalStateException("cannot unmap " + this, e);
            }
        }
    }

    /**
     * Unmaps the region after {@link ReleasedRanges} has mapped over it, which loaded the C library: on the newer
     * route through the library's {@code munmap}, cheaper than closing the arena (a handshake with every thread,
     * ~80 µs); the arena stays open, unreachable, and a shared arena is never closed by GC.
     */
    void unmapReserved() {
        markUnmapped();
        if (buffer != null) {
            IoUtil.unmap(buffer);
        } else {
            Posix.unmap(address, length); // munmap takes every page the range touches
        }
    }

    /** Once only, even when two threads race to unmap: a second munmap could hit another mapping at the address. */
    private synchronized void markUnmapped() {
        if (unmapped) {
            throw new IllegalStateException("already unmapped: " + this);
        }
        unmapped = true;
    }

    @Override
    public String toString() {
        return "MappedRegion[0x" + Long.toHexString(address) + " +" + length + "]";
    }
}
