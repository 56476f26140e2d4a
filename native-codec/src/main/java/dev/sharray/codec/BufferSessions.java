package dev.sharray.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Keeps the memory of the direct buffers of one native call from being freed while C works on it. A buffer
 * made by {@code MemorySegment.asByteBuffer()} (JDK 21 and later) lives only as long as its segment's arena;
 * C would read or write it after {@code Arena.close()} freed it, which ends the JVM or corrupts its heap. As
 * the JDK's own channels do around native I/O, each such buffer's session is acquired before the call and
 * released after it: a buffer whose arena is closed is refused, and an {@code Arena.close()} that comes while
 * the call holds its buffer fails in the closing thread ("Session is acquired by 1 clients"). Other direct
 * buffers ({@code allocateDirect}, {@code FileChannel.map}) have no session: nothing is held for them.
 *
 * <p>This needs the JDK's internal NIO access, which the project's JVM flags export
 * ({@code jdk.internal.access}). Without that export, and on JDK 17 (whose incubating foreign API is not
 * covered), {@link #available()} is false and buffers reach C as they are.
 *
 * <p>One instance per thread, in {@link CallScratch}: a call acquires, runs, then releases in a
 * {@code finally}.
 */
final class BufferSessions {
    /** {@code JavaNioAccess.hasSession(Buffer)}, bound to the JDK's instance; null when unavailable. */
    private static final MethodHandle HAS_SESSION;
    /** {@code JavaNioAccess.acquireSession(Buffer)}; null when unavailable. */
    private static final MethodHandle ACQUIRE;
    /** {@code JavaNioAccess.releaseSession(Buffer)}; null when unavailable. */
    private static final MethodHandle RELEASE;

    static {
        final MethodType takesBuffer = MethodType.methodType(void.class, Buffer.class);
        final MethodType takesByteBuffer = MethodType.methodType(void.class, ByteBuffer.class);
        HAS_SESSION = JdkNioAccess.find("hasSession", MethodType.methodType(boolean.class, Buffer.class),
            MethodType.methodType(boolean.class, ByteBuffer.class));
        final MethodHandle acquire = JdkNioAccess.find("acquireSession", takesBuffer, takesByteBuffer);
        final MethodHandle release = JdkNioAccess.find("releaseSession", takesBuffer, takesByteBuffer);
        final boolean all = HAS_SESSION != null && acquire != null && release != null;
        ACQUIRE = all ? acquire : null;
        RELEASE = all ? release : null;
    }

    /** The buffers this thread's call holds, first to last. */
    private final ByteBuffer[] held = new ByteBuffer[ErasureCodec.MAX_SHARDS + 1];
    private int count;

    /** @return whether buffers of an arena are held across native calls (JDK 21+ with the project's JVM flags) */
    static boolean available() {
        return ACQUIRE != null;
    }

    /**
     * Holds {@code buffer}'s arena open until {@link #releaseAll()}, if it has one.
     *
     * @param buffer a direct buffer the coming native call reads or writes
     * @param name   what it is, for the message ("newData", "the buffer")
     * @throws IllegalStateException when its arena is closed, or is confined to another thread; the buffers
     *                               held so far are released
     */
    void acquire(ByteBuffer buffer, String name) {
        acquire(buffer, -1, name);
    }

    /**
     * Holds the arenas of {@code shards}, in order (see {@link #acquire(ByteBuffer, String)}).
     *
     * @param shards the call's shards, already checked to be direct
     */
    void acquireAll(ByteBuffer[] shards) {
        for (int i = 0; i < shards.length; i++) {
            acquire(shards[i], i, null);
        }
    }

    /** @param name what the buffer is, or null for shard {@code index} (the message is built only on failure) */
    private void acquire(ByteBuffer buffer, int index, String name) {
        if (ACQUIRE == null || !hasSession(buffer)) {
            return;
        }
        try {
            ACQUIRE.invokeExact(buffer);
        } catch (Throwable t) {
            releaseAll();
            throw new IllegalStateException((name != null ? name : "shard " + index) + " cannot be used: the arena"
                + " of its memory segment is closed or confined to another thread (" + t.getMessage() + ")", t);
        }
        held[count++] = buffer;
    }

    /** Lets go of every buffer held by this thread's call; their arenas may close again. */
    void releaseAll() {
        Throwable failure = null;
        while (count > 0) {
            final ByteBuffer buffer = held[--count];
            held[count] = null; // the scratch must not keep a caller's buffer alive
            try {
                RELEASE.invokeExact(buffer);
            } catch (Throwable t) {
                failure = t; // let go of the others first
            }
        }
        if (failure != null) {
            throw new IllegalStateException("cannot let go of the memory of a shard", failure);
        }
    }

    private static boolean hasSession(ByteBuffer buffer) {
        try {
            return (boolean) HAS_SESSION.invokeExact(buffer);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot tell whether a buffer belongs to an arena", t);
        }
    }
}
