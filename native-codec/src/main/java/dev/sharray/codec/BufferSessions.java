package dev.sharray.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Keeps the memory of the direct buffers of one native call from being freed while C works on it. A buffer
 * made by {@code MemorySegment.asByteBuffer()} lives only as long as its segment's arena (JDK 21 and later) or
 * resource scope (JDK 17's incubating {@code jdk.incubator.foreign}); C would read or write it after the arena
 * or scope closed and freed it, which ends the JVM or corrupts its heap. As the JDK's own channels do around
 * native I/O, each such buffer's session (scope) is acquired before the call and released after it: a buffer
 * whose arena is closed is refused, and a close that comes while the call holds its buffer fails in the closing
 * thread ("Session is acquired by 1 clients", on JDK 17 "Scope is acquired by 1 locks"). Other direct buffers
 * ({@code allocateDirect}, {@code FileChannel.map}) have no session: nothing is held for them.
 *
 * <p>This needs the JDK's internal NIO access, which the project's JVM flags export ({@code jdk.internal.access},
 * and on JDK 17 {@code jdk.internal.misc} for the scope's handle). Without those exports {@link #available()} is
 * false: nothing is held, and a buffer whose arena or scope is closed already is refused through the public API
 * ({@link #CHECKER}).
 *
 * <p>One instance per thread, in {@link CallScratch}: a call acquires, runs, then releases in a
 * {@code finally}.
 */
final class BufferSessions {
    /** How this JDK holds a buffer's memory; null when it cannot. */
    private static final Holder HOLDER = findHolder();
    /**
     * Without {@link #HOLDER} (no exports) on JDK 22+, or on JDK 17 with {@code jdk.incubator.foreign} added: the
     * public API's check that a buffer's arena (scope) is alive and accessible here. It holds nothing, so a close
     * racing with the call is not prevented, but a buffer whose arena was closed before the call is refused instead
     * of reaching C: before, encoding one (JDK 25, or JDK 17, without the project's JVM flags, a 1 MiB shard of a
     * closed shared arena or scope) ended the JVM with SIGSEGV.
     */
    private static final PublicScopes CHECKER = HOLDER == null ? PublicScopes.find() : null;

    /** What the call holds, first to last: what {@link Holder#acquire} answered, to give to its release. */
    private final Object[] held = new Object[ErasureCodec.MAX_SHARDS + 1];
    private int count;

    private static Holder findHolder() {
        final Holder arenas = ArenaSessions.find();
        return arenas != null ? arenas : IncubatorScopes.find();
    }

    /** @return whether buffers of an arena or scope are held across native calls (needs the project's JVM flags) */
    static boolean available() {
        return HOLDER != null;
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
        if (HOLDER == null && CHECKER == null) {
            return;
        }
        final Object token;
        try {
            token = HOLDER != null ? HOLDER.acquire(buffer) : CHECKER.check(buffer);
        } catch (Throwable t) {
            releaseAll();
            throw new IllegalStateException((name != null ? name : "shard " + index) + " cannot be used: the arena"
                + " of its memory segment is closed or confined to another thread (" + t.getMessage() + ")", t);
        }
        if (token != null) {
            held[count++] = token;
        }
    }

    /** Lets go of every buffer held by this thread's call; their arenas may close again. */
    void releaseAll() {
        Throwable failure = null;
        while (count > 0) {
            final Object token = held[--count];
            held[count] = null; // the scratch must not keep a caller's buffer alive
            try {
                HOLDER.release(token);
            } catch (Throwable t) {
                failure = t; // let go of the others first
            }
        }
        if (failure != null) {
            throw new IllegalStateException("cannot let go of the memory of a shard", failure);
        }
    }

    /** One JDK's way of holding a buffer's memory segment open. */
    private interface Holder {
        /** @return what to give {@link #release}, or null when the buffer has no arena (nothing is held) */
        Object acquire(ByteBuffer buffer) throws Throwable;

        void release(Object token) throws Throwable;
    }

    /**
     * JDK 21 and later: {@code JavaNioAccess.acquireSession(Buffer)} and {@code releaseSession(Buffer)}. The
     * handles are static finals so that the JIT inlines them, as for every per-shard call here.
     */
    private static final class ArenaSessions implements Holder {
        private static final MethodHandle HAS_SESSION = JdkNioAccess.find("hasSession",
            MethodType.methodType(boolean.class, Buffer.class), MethodType.methodType(boolean.class, ByteBuffer.class));
        private static final MethodHandle ACQUIRE = JdkNioAccess.find("acquireSession",
            MethodType.methodType(void.class, Buffer.class), MethodType.methodType(void.class, ByteBuffer.class));
        private static final MethodHandle RELEASE = JdkNioAccess.find("releaseSession",
            MethodType.methodType(void.class, Buffer.class), MethodType.methodType(void.class, ByteBuffer.class));

        /** @return the holder, or null when this JDK or its flags do not offer the three methods */
        static Holder find() {
            return HAS_SESSION != null && ACQUIRE != null && RELEASE != null ? new ArenaSessions() : null;
        }

        @Override
        public Object acquire(ByteBuffer buffer) throws Throwable {
            if (!(boolean) HAS_SESSION.invokeExact(buffer)) {
                return null;
            }
            ACQUIRE.invokeExact(buffer);
            return buffer;
        }

        @Override
        public void release(Object token) throws Throwable {
            RELEASE.invokeExact((ByteBuffer) token);
        }
    }

    /**
     * Through the public API only, a check, not a hold (see {@link #CHECKER}). JDK 22+: {@code
     * MemorySegment.ofBuffer(buffer)}, its {@code scope().isAlive()} and {@code isAccessibleBy(Thread)}. JDK 17, when
     * the application added {@code jdk.incubator.foreign} (without it no buffer has a scope):
     * {@code MemorySegment.ofByteBuffer(buffer)}, its {@code scope()}'s {@code isAlive()} and {@code ownerThread()}.
     */
    private static final class PublicScopes {
        private static final MethodHandle OF_BUFFER;
        private static final MethodHandle IS_ALIVE; // (segment) -> segment.scope().isAlive()
        /** (segment, thread) -> boolean on JDK 22+; null on JDK 17, which has {@link #OWNER} */
        private static final MethodHandle ACCESSIBLE;
        /** (segment) -> segment.scope().ownerThread(), null for a shared scope: JDK 17 */
        private static final MethodHandle OWNER;

        static {
            MethodHandle ofBuffer = null;
            MethodHandle isAlive = null;
            MethodHandle accessible = null;
            MethodHandle owner = null;
            if (Runtime.version().feature() == 17 && ModuleLayer.boot().findModule("jdk.incubator.foreign").isPresent()) {
                try {
                    final Class<?> segment = Class.forName("jdk.incubator.foreign.MemorySegment");
                    final Class<?> scope = Class.forName("jdk.incubator.foreign.ResourceScope");
                    final MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                    ofBuffer = lookup.findStatic(segment, "ofByteBuffer", MethodType.methodType(segment, ByteBuffer.class))
                        .asType(MethodType.methodType(Object.class, ByteBuffer.class));
                    final MethodHandle scopeOf = lookup.findVirtual(segment, "scope", MethodType.methodType(scope));
                    isAlive = MethodHandles.filterReturnValue(scopeOf,
                        lookup.findVirtual(scope, "isAlive", MethodType.methodType(boolean.class)))
                        .asType(MethodType.methodType(boolean.class, Object.class));
                    owner = MethodHandles.filterReturnValue(scopeOf,
                        lookup.findVirtual(scope, "ownerThread", MethodType.methodType(Thread.class)))
                        .asType(MethodType.methodType(Thread.class, Object.class));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    ofBuffer = null;
                }
            } else if (Runtime.version().feature() >= 22) { // final API; 21's was a preview
                try {
                    final Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
                    final Class<?> scope = Class.forName("java.lang.foreign.MemorySegment$Scope");
                    final MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                    ofBuffer = lookup.findStatic(segment, "ofBuffer", MethodType.methodType(segment, Buffer.class))
                        .asType(MethodType.methodType(Object.class, ByteBuffer.class));
                    isAlive = MethodHandles.filterReturnValue(
                        lookup.findVirtual(segment, "scope", MethodType.methodType(scope)),
                        lookup.findVirtual(scope, "isAlive", MethodType.methodType(boolean.class)))
                        .asType(MethodType.methodType(boolean.class, Object.class));
                    accessible = lookup.findVirtual(segment, "isAccessibleBy",
                        MethodType.methodType(boolean.class, Thread.class))
                        .asType(MethodType.methodType(boolean.class, Object.class, Thread.class));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    ofBuffer = null;
                }
            }
            OF_BUFFER = ofBuffer;
            IS_ALIVE = isAlive;
            ACCESSIBLE = accessible;
            OWNER = owner;
        }

        static PublicScopes find() {
            return OF_BUFFER != null ? new PublicScopes() : null;
        }

        /** @return null (nothing to release); throws when the buffer's arena is closed or confined to another thread */
        Object check(ByteBuffer buffer) throws Throwable {
            final Object segment = (Object) OF_BUFFER.invokeExact(buffer);
            if (!(boolean) IS_ALIVE.invokeExact(segment)) {
                throw new IllegalStateException("Already closed");
            }
            final boolean accessible;
            if (ACCESSIBLE != null) {
                accessible = (boolean) ACCESSIBLE.invokeExact(segment, Thread.currentThread());
            } else {
                final Thread owner = (Thread) OWNER.invokeExact(segment);
                accessible = owner == null || owner == Thread.currentThread();
            }
            if (!accessible) {
                throw new IllegalStateException("Attempted access outside owning thread");
            }
            return null;
        }
    }

    /**
     * JDK 17: {@code JavaNioAccess.acquireScope(Buffer, false)} answers a {@code ScopedMemoryAccess.Scope.Handle}
     * (null for a buffer without a scope), released by {@code handle.scope().release(handle)}.
     */
    private static final class IncubatorScopes implements Holder {
        private static final String SCOPE = "jdk.internal.misc.ScopedMemoryAccess$Scope";
        private static final MethodHandle ACQUIRE;
        private static final MethodHandle SCOPE_OF;
        private static final MethodHandle RELEASE;

        static {
            MethodHandle acquire = null;
            MethodHandle scopeOf = null;
            MethodHandle release = null;
            try {
                final Class<?> scope = Class.forName(SCOPE);
                final Class<?> handle = Class.forName(SCOPE + "$Handle");
                acquire = JdkNioAccess.find("acquireScope", MethodType.methodType(handle, Buffer.class, boolean.class),
                    MethodType.methodType(Object.class, ByteBuffer.class, boolean.class));
                scopeOf = JdkNioAccess.findInternal(handle, "scope", MethodType.methodType(scope),
                    MethodType.methodType(Object.class, Object.class));
                release = JdkNioAccess.findInternal(scope, "release", MethodType.methodType(void.class, handle),
                    MethodType.methodType(void.class, Object.class, Object.class));
            } catch (ClassNotFoundException e) {
                // not JDK 17's internals
            }
            ACQUIRE = acquire;
            SCOPE_OF = scopeOf;
            RELEASE = release;
        }

        /** @return the holder, or null when this JDK or its flags do not offer the three methods */
        static Holder find() {
            return ACQUIRE != null && SCOPE_OF != null && RELEASE != null ? new IncubatorScopes() : null;
        }

        @Override
        public Object acquire(ByteBuffer buffer) throws Throwable {
            return (Object) ACQUIRE.invokeExact(buffer, false);
        }

        @Override
        public void release(Object token) throws Throwable {
            RELEASE.invokeExact((Object) SCOPE_OF.invokeExact(token), token);
        }
    }
}
