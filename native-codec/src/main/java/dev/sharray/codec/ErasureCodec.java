package dev.sharray.codec;

import dev.sharray.SharedArray;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A systematic Reed-Solomon erasure codec over GF(2^8) (polynomial 0x11D, generator 2) with
 * {@code k} data shards and {@code m} parity shards, {@code k + m <= 256}.
 *
 * <p>A stripe is {@code k + m} shards of one length, at least 1 byte (an {@code IllegalArgumentException}
 * otherwise, in every form): data shards first, then parity, as in Backblaze JavaReedSolomon and
 * klauspost/reedsolomon. Any {@code k} surviving shards rebuild the rest. Every operation exists for three stripe
 * forms:
 * <ul>
 *   <li>{@code byte[][]} of {@code k + m} arrays;</li>
 *   <li>{@code ByteBuffer[]} of {@code k + m} <em>direct</em> buffers: each shard is the buffer's
 *       {@code position()..limit()} range; positions and limits are never changed. A buffer of a memory
 *       segment ({@code MemorySegment.asByteBuffer()}) keeps its arena open for the call, as the JDK's channels
 *       do for I/O: one whose arena is closed throws {@code IllegalStateException}, and closing the arena
 *       during the call fails in the closing thread (JDK 17's incubating resource scopes and the arenas of
 *       JDK 21+, with the project's JVM flags);</li>
 *   <li>a {@code SharedArray} of dtype UINT8 and shape {@code (k + m, shardLength)}, contiguous,
 *       processed in place (raw addresses go straight to the kernels, nothing is copied). Data of another dtype is
 *       written and read through a view of the data rows, {@code stripe.slice(0, 0, k, 1).viewAs(DType.FLOAT64)}
 *       (a {@code shardLength} that is a multiple of 8), without a copy.</li>
 * </ul>
 *
 * <p>Instances are immutable and thread-safe: kernels are stateless, encode tables are built once
 * and only read, scratch memory is per thread, and decode tables are cached per erasure pattern in a
 * concurrent map. Concurrent calls must not write the same shards, of course. Every argument is
 * validated before any kernel runs; invalid input throws and never reaches native code.
 *
 * <p>The NATIVE and ISAL backends keep their tables in native memory (about 40 bytes per coefficient: 1.6 KB for
 * RS(10,4), 0.65 MB for RS(128,128), plus those of every cached erasure pattern). {@link #close()} frees it; a
 * codec that is never closed has it freed only once the garbage collector finds the codec unreachable.
 */
public final class ErasureCodec implements AutoCloseable {
    /** Most shards a stripe can have: GF(2^8) has 256 distinct evaluation points. */
    public static final int MAX_SHARDS = 256;
    /** Bound on cached decode plans; patterns beyond it are computed per call (still correct). */
    private static final int MAX_CACHED_PLANS = 4096;
    /** Bytes of new data staged off-heap per kernel call of {@code update(SharedArray, ...)}: cache-sized. */
    private static final int UPDATE_CHUNK = 64 << 10;
    /**
     * Bound on the table memory of cached plans (a plan holds up to k×m coefficients, twice: for RS(128,128)
     * ~1.3 MB of native tables, 40 bytes per coefficient, or ~4.3 MB of the JAVA backend's heap tables with
     * 512-bit vectors), so a wide code cannot pin gigabytes, nor a small heap run out.
     */
    private static final long MAX_CACHED_PLAN_BYTES = 64L << 20;
    /**
     * Plan table bytes cached by all the codecs {@link SharedStripes} shares, within {@link #MAX_CACHED_PLAN_BYTES}
     * together: those are never closed, and a worker that met many geometries kept each one's cache (the soak
     * review: ~60 MB more per geometry, for good).
     */
    private static final AtomicLong SHARED_PLAN_BYTES = new AtomicLong();

    private final int k;
    private final int m;
    private final int n;
    private final Matrix matrix;
    private final int[][] generator;
    private final Engine engine;
    private final Checks checks;
    private final Tables encodeTables;
    /**
     * Per data shard, made by its first {@code update}: its generator column over the parity rows, twice, so one
     * pass over the parity applies {@code col * old ^ col * new} from the sources {@code {old, new}}. Made up
     * front they were twice the encode tables' size (~1.3 MB of native memory for RS(128,128)) in every codec,
     * most of which never updates.
     */
    private final AtomicReferenceArray<Tables> columnPairTables;
    private final boolean[] parityFlags;
    private final boolean[] readOnlyFlags;
    private final ConcurrentHashMap<PatternKey, DecodePlan> plans = new ConcurrentHashMap<>();
    private final int maxCachedPlans;
    /** The most table bytes one of this codec's plans holds: what a cached plan counts against a shared budget. */
    private final long planBytes;
    /**
     * Cache places taken, by plans cached or being made to be: reserved before a plan is made, so concurrent misses
     * cannot each find room and overshoot the bound (RS(128,128) on 300 threads cached 55 plans against 51).
     */
    private final AtomicInteger planPlaces = new AtomicInteger();
    /** {@link #CLOSED} once {@link #close()} was called, plus the number of calls running (see {@link #enter()}). */
    private final AtomicLong state = new AtomicLong();
    private static final long CLOSED = 1L << 62;
    /** Set on the codecs {@link SharedStripes#codec} hands out: they belong to the process, and close() leaves them. */
    private volatile boolean sharedByProcess;
    /** Test hook (null in use): runs after direct buffer shards are checked, before they are coded. */
    private volatile Runnable afterBuffersChecked;
    /** Test hook (null in use): runs after a missed plan's place in the cache was decided, before it is made. */
    private volatile Runnable afterPlanPlaceDecided;

    private ErasureCodec(int k, int m, Matrix matrix, Engine engine) {
        this.k = k;
        this.m = m;
        this.n = k + m;
        this.matrix = matrix;
        this.generator = matrix.generate(k, m);
        this.engine = engine;
        this.checks = new Checks(k, n);
        this.encodeTables = engine.prepare(Arrays.copyOfRange(generator, k, n));
        // A plan's tables hold at most m x k coefficients, twice (all missing rows, then the data-only ones): twice
        // the encode tables, counted in this engine's own table bytes (40 per coefficient native, 32 ISA-L,
        // 2 x the vector length + 4 on the Java heap, 132 with 512-bit vectors, and 4 for the scalar Java engine,
        // whose product rows are the shared Galois.MUL).
        this.planBytes = 2 * encodeTables.bytes();
        this.maxCachedPlans = (int) Math.max(16, Math.min(MAX_CACHED_PLANS, MAX_CACHED_PLAN_BYTES / planBytes));
        this.columnPairTables = new AtomicReferenceArray<>(k);
        this.parityFlags = new boolean[n];
        Arrays.fill(parityFlags, k, n, true);
        this.readOnlyFlags = new boolean[n];
    }

    /**
     * A Vandermonde codec on the best available backend ({@link Backend#AUTO}).
     *
     * @param dataShards   k, at least 1
     * @param parityShards m, at least 1, with k + m at most 256
     * @return the codec
     */
    public static ErasureCodec create(int dataShards, int parityShards) {
        return builder(dataShards, parityShards).build();
    }

    /**
     * A builder to choose the matrix, backend and SIMD level.
     *
     * @param dataShards   k, at least 1
     * @param parityShards m, at least 1, with k + m at most 256
     * @return a builder defaulting to {@link Matrix#VANDERMONDE} and {@link Backend#AUTO}
     */
    public static Builder builder(int dataShards, int parityShards) {
        // parityShards > MAX - dataShards, not dataShards + parityShards > MAX: the sum can overflow to negative
        if (dataShards < 1 || parityShards < 1 || parityShards > MAX_SHARDS - dataShards) {
            throw new IllegalArgumentException("need dataShards >= 1, parityShards >= 1 and dataShards + "
                + "parityShards <= " + MAX_SHARDS + ", got " + dataShards + " + " + parityShards);
        }
        return new Builder(dataShards, parityShards);
    }

    /** @return k, the number of data shards */
    public int dataShards() {
        return k;
    }

    /** @return m, the number of parity shards */
    public int parityShards() {
        return m;
    }

    /** @return k + m */
    public int totalShards() {
        return n;
    }

    /** @return the generator matrix kind */
    public Matrix matrix() {
        return matrix;
    }

    /** @return the backend actually running (never {@link Backend#AUTO}) */
    public Backend backend() {
        return engine.backend();
    }

    /** @return the instruction set the kernels run with */
    public SimdLevel simdLevel() {
        return engine.simdLevel();
    }

    /**
     * The full (k + m) x k generator matrix (top k rows are the identity).
     *
     * @return a fresh copy, entries 0..255
     */
    public int[][] generatorMatrix() {
        int[][] r = new int[n][];
        for (int i = 0; i < n; i++) {
            r[i] = generator[i].clone();
        }
        return r;
    }

    // ------------------------------------------------------------------ byte[][]

    /**
     * Computes the parity shards from the data shards.
     *
     * @param shards k data then m parity arrays of one length; parity is overwritten
     */
    public void encode(byte[][] shards) {
        int len = checks.heap(shards);
        encode(shards, 0, len);
    }

    /**
     * Computes bytes {@code [offset, offset + length)} of the parity shards from the same range of the
     * data shards, like Backblaze's {@code encodeParity}.
     *
     * @param shards k data then m parity arrays of one length
     * @param offset first byte of every shard to encode
     * @param length bytes to encode, at least 1
     * @throws IndexOutOfBoundsException when {@code length} is below 1 or the range is not inside the shards
     */
    public void encode(byte[][] shards, int offset, int length) {
        enter();
        try {
            checks.range(offset, length, checks.heap(shards));
            checks.notAliased(shards, parityFlags);
            CallScratch c = CallScratch.get();
            try {
                System.arraycopy(shards, 0, c.src, 0, k);
                System.arraycopy(shards, k, c.dst, 0, m);
                engine.dot(encodeTables, c.src, c.dst, offset, length, false);
            } finally {
                c.clear();
            }
        } finally {
            exit();
        }
    }

    /**
     * Checks the parity shards against the data shards without modifying anything.
     *
     * @param shards k data then m parity arrays of one length
     * @return true when every parity byte is what {@link #encode(byte[][])} would write
     */
    public boolean verify(byte[][] shards) {
        enter();
        try {
            int len = checks.heap(shards);
            CallScratch c = CallScratch.get();
            try {
                System.arraycopy(shards, 0, c.src, 0, k);
                System.arraycopy(shards, k, c.dst, 0, m);
                return engine.verify(encodeTables, c.src, c.dst, 0, len);
            } finally {
                c.clear();
            }
        } finally {
            exit();
        }
    }

    /**
     * Rebuilds every missing shard, data and parity, from any k present ones. A missing entry may be
     * {@code null} (a new array is stored into {@code shards}) or an array of the shard length, which
     * is overwritten. Present shards are only read; {@code present} is copied once, when the call starts
     * (a change another thread makes to it during the call has no effect), and is not modified.
     *
     * @param shards  k + m entries
     * @param present which entries hold valid data; at least k must be true
     * @throws TooFewShardsException when fewer than k are present
     */
    public void reconstruct(byte[][] shards, boolean[] present) {
        reconstructHeap(shards, present, false);
    }

    /**
     * Like {@link #reconstruct(byte[][], boolean[])} but rebuilds only the missing data shards; missing
     * parity entries are left as they are (possibly null).
     *
     * @param shards  k + m entries
     * @param present which entries hold valid data; at least k must be true
     * @throws TooFewShardsException when fewer than k are present
     */
    public void reconstructData(byte[][] shards, boolean[] present) {
        reconstructHeap(shards, present, true);
    }

    /**
     * Replaces data shard {@code dataIndex} with {@code newData} and patches every parity shard from the
     * difference (reads the old data shard, the new data and the parity; no other data shard is read).
     * Afterwards the stripe equals a full re-encode with the new data.
     *
     * @param shards    k + m arrays of one length; the old data must still be in {@code shards[dataIndex]}
     * @param dataIndex which data shard changes, 0..k-1
     * @param newData   the new contents, of the shard length; must not be {@code shards[dataIndex]} itself
     * @throws IndexOutOfBoundsException when {@code dataIndex} is not 0..k-1
     */
    public void update(byte[][] shards, int dataIndex, byte[] newData) {
        enter();
        try {
            int len = checks.heap(shards);
            checks.dataIndex(dataIndex);
            if (newData == null) {
                throw new NullPointerException("newData must not be null");
            }
            Checks.newDataLength(newData.length, len);
            if (newData == shards[dataIndex]) {
                throw new IllegalArgumentException("newData must not be the shard array it replaces "
                    + "(the old contents are needed to patch the parity)");
            }
            for (int p = k; p < n; p++) {
                if (newData == shards[p]) {
                    throw new IllegalArgumentException("newData must not be parity shard " + p + " (it is patched)");
                }
            }
            CallScratch c = CallScratch.get();
            boolean[] written = c.writable;
            System.arraycopy(parityFlags, 0, written, 0, n);
            written[dataIndex] = true;
            checks.notAliased(shards, written);
            try {
                System.arraycopy(shards, k, c.dst, 0, m);
                // parity ^= col * old ^ col * new = col * (old ^ new), in one pass over the parity
                c.src[0] = shards[dataIndex];
                c.src[1] = newData;
                engine.dot(columnPair(dataIndex), c.src, c.dst, 0, len, true);
            } finally {
                c.clear();
            }
            System.arraycopy(newData, 0, shards[dataIndex], 0, len);
        } finally {
            exit();
        }
    }

    private void reconstructHeap(byte[][] shards, boolean[] callerPresent, boolean dataOnly) {
        enter();
        try {
            final boolean[] present = CallScratch.get().present; // the one copy the checks, the plan and the writes use
            int len = checks.heapReconstruct(shards, callerPresent, present);
            boolean[] written = CallScratch.get().writable;
            for (int i = 0; i < n; i++) {
                written[i] = !present[i] && (!dataOnly || i < k); // data-only never writes missing parity
            }
            checks.notAliased(shards, written);
            DecodePlan plan = plan(present);
            try {
                int count = dataOnly ? plan.missingData : plan.missing.length;
                if (count == 0) {
                    return;
                }
                CallScratch c = CallScratch.get();
                try {
                    for (int r = 0; r < count; r++) {
                        int i = plan.missing[r];
                        if (shards[i] == null) {
                            shards[i] = new byte[len];
                        }
                        c.dst[r] = shards[i];
                    }
                    for (int j = 0; j < k; j++) {
                        c.src[j] = shards[plan.survivors[j]];
                    }
                    engine.dot(dataOnly ? plan.dataOnly : plan.all, c.src, c.dst, 0, len, false);
                } finally {
                    c.clear();
                }
            } finally {
                done(plan);
            }
        } finally {
            exit();
        }
    }

    // ------------------------------------------------------------------ direct ByteBuffer[]

    /**
     * Computes the parity shards from the data shards.
     *
     * @param shards k data then m parity direct buffers with equal {@code remaining()}; parity ones writable
     */
    public void encode(ByteBuffer[] shards) {
        enter();
        try {
            shards = snapshot(shards);
            CallScratch c = CallScratch.get();
            long len = checks.buffers(shards, parityFlags, c.shardAddr);
            c.sessions.acquireAll(shards);
            try {
                checks.writtenDisjoint(parityFlags, c.shardAddr, len);
                runHook(afterBuffersChecked);
                System.arraycopy(c.shardAddr, 0, c.srcAddr, 0, k);
                System.arraycopy(c.shardAddr, k, c.dstAddr, 0, m);
                engine.dot(encodeTables, c.srcAddr, c.dstAddr, len, false);
            } catch (MemoryFaultException e) {
                throw e.locate(c.shardAddr, n, len);
            } finally {
                c.sessions.releaseAll();
                Reference.reachabilityFence(shards);
            }
        } finally {
            exit();
        }
    }

    /**
     * Checks the parity shards against the data shards without modifying anything.
     *
     * @param shards k data then m parity direct buffers with equal {@code remaining()}
     * @return true when every parity byte is what {@link #encode(ByteBuffer[])} would write
     */
    public boolean verify(ByteBuffer[] shards) {
        enter();
        try {
            shards = snapshot(shards);
            CallScratch c = CallScratch.get();
            long len = checks.buffers(shards, readOnlyFlags, c.shardAddr);
            c.sessions.acquireAll(shards);
            try {
                runHook(afterBuffersChecked);
                System.arraycopy(c.shardAddr, 0, c.srcAddr, 0, k);
                System.arraycopy(c.shardAddr, k, c.dstAddr, 0, m);
                return engine.verify(encodeTables, c.srcAddr, c.dstAddr, len);
            } catch (MemoryFaultException e) {
                throw e.locate(c.shardAddr, n, len);
            } finally {
                c.sessions.releaseAll();
                Reference.reachabilityFence(shards);
            }
        } finally {
            exit();
        }
    }

    /**
     * Rebuilds every missing shard, data and parity, into its buffer (all k + m buffers must be given:
     * missing ones are the destinations and must be writable).
     *
     * @param shards  k + m direct buffers with equal {@code remaining()}
     * @param present which buffers hold valid data; at least k must be true
     * @throws TooFewShardsException when fewer than k are present
     */
    public void reconstruct(ByteBuffer[] shards, boolean[] present) {
        reconstructBuffers(shards, present, false);
    }

    /**
     * Like {@link #reconstruct(ByteBuffer[], boolean[])} but rebuilds only missing data shards.
     *
     * @param shards  k + m direct buffers with equal {@code remaining()}
     * @param present which buffers hold valid data; at least k must be true
     * @throws TooFewShardsException when fewer than k are present
     */
    public void reconstructData(ByteBuffer[] shards, boolean[] present) {
        reconstructBuffers(shards, present, true);
    }

    /**
     * Replaces data shard {@code dataIndex} with {@code newData} and patches the parity, as
     * {@link #update(byte[][], int, byte[])} does.
     *
     * @param shards    k + m direct buffers with equal {@code remaining()}; the old data still in place
     * @param dataIndex which data shard changes, 0..k-1
     * @param newData   a direct buffer whose {@code remaining()} is the shard length, not overlapping
     *                  any shard; its position is not changed
     * @throws IndexOutOfBoundsException when {@code dataIndex} is not 0..k-1
     */
    public void update(ByteBuffer[] shards, int dataIndex, ByteBuffer newData) {
        enter();
        try {
            shards = snapshot(shards);
            checks.dataIndex(dataIndex);
            CallScratch cs = CallScratch.get();
            boolean[] w = cs.writable;
            Arrays.fill(w, false);
            System.arraycopy(parityFlags, 0, w, 0, n);
            w[dataIndex] = true;
            long len = checks.buffers(shards, w, cs.shardAddr);
            if (newData == null) {
                throw new NullPointerException("newData must not be null");
            }
            if (!newData.isDirect()) {
                throw new IllegalArgumentException("newData is not a direct ByteBuffer");
            }
            final int newPosition = newData.position(); // read once, as checks.buffers reads the shards'
            Checks.newDataLength(newData.limit() - newPosition, len);
            final long newAddress = Buffers.base(newData) + newPosition;
            cs.sessions.acquireAll(shards);
            try {
                cs.sessions.acquire(newData, "newData");
                // overlaps only once the arenas are held: a closed one's address may belong to another buffer by now
                checks.writtenDisjoint(w, cs.shardAddr, len);
                checks.disjoint(-1, newAddress, len, cs.shardAddr, -1);
                runHook(afterBuffersChecked);
                System.arraycopy(cs.shardAddr, k, cs.dstAddr, 0, m);
                cs.srcAddr[0] = cs.shardAddr[dataIndex];
                cs.srcAddr[1] = newAddress;
                engine.dot(columnPair(dataIndex), cs.srcAddr, cs.dstAddr, len, true); // one pass: col * (old ^ new)
                // The data itself, at the addresses the parity patch used, while the buffers are still held: not a put
                // against the buffers' current limits, which another thread may have cut since the checks (that put
                // then failed with the parity already patched for the new data, so the stripe no longer decoded), nor
                // after the release, when their arena may close.
                RawMemory.copy(newAddress, cs.shardAddr[dataIndex], len);
            } catch (MemoryFaultException e) {
                throw e.locate(cs.shardAddr, n, len); // a fault in newData names no shard
            } finally {
                cs.sessions.releaseAll();
                Reference.reachabilityFence(shards); // the memory stays allocated and mapped until the copy is done
                Reference.reachabilityFence(newData);
            }
        } finally {
            exit();
        }
    }

    private void reconstructBuffers(ByteBuffer[] shards, boolean[] callerPresent, boolean dataOnly) {
        enter();
        try {
            shards = snapshot(shards);
            CallScratch c = CallScratch.get();
            final boolean[] present = checks.present(callerPresent, c.present); // the plan and the writable flags from one copy
            for (int i = 0; i < n; i++) {
                c.writable[i] = !present[i] && (!dataOnly || i < k); // data-only never writes missing parity
            }
            long len = checks.buffers(shards, c.writable, c.shardAddr);
            DecodePlan plan = plan(present);
            try {
                int count = dataOnly ? plan.missingData : plan.missing.length;
                if (count == 0) {
                    return;
                }
                c.sessions.acquireAll(shards);
                try {
                    checks.writtenDisjoint(c.writable, c.shardAddr, len);
                    runHook(afterBuffersChecked);
                    for (int j = 0; j < k; j++) {
                        c.srcAddr[j] = c.shardAddr[plan.survivors[j]];
                    }
                    for (int r = 0; r < count; r++) {
                        c.dstAddr[r] = c.shardAddr[plan.missing[r]];
                    }
                    engine.dot(dataOnly ? plan.dataOnly : plan.all, c.srcAddr, c.dstAddr, len, false);
                } catch (MemoryFaultException e) {
                    throw e.locate(c.shardAddr, n, len);
                } finally {
                    c.sessions.releaseAll();
                    Reference.reachabilityFence(shards);
                }
            } finally {
                done(plan);
            }
        } finally {
            exit();
        }
    }

    // ------------------------------------------------------------------ closing

    /**
     * Frees the codec's native tables (NATIVE and ISAL backends; nothing to free on JAVA). Calls that are running
     * when it is called finish normally, and the last of them to return frees the tables: close never frees memory
     * a kernel is reading, and never waits. Every call that starts afterwards throws {@link IllegalStateException}.
     * Idempotent. A codec from {@link SharedStripes#codec} belongs to the whole process and is left open.
     */
    @Override
    public void close() {
        if (sharedByProcess) {
            return;
        }
        if (state.getAndUpdate(s -> s | CLOSED) == 0) {
            freeTables(); // no call running: nobody else will
        }
    }

    /** Marks a codec that {@link SharedStripes} shares between callers: {@link #close()} leaves it open. */
    void shareByProcess() {
        sharedByProcess = true;
    }

    /**
     * Counts a call in; refused once the codec is closed. Each public operation pairs it with {@link #exit()}, so
     * the tables stay allocated until the last running call is done.
     */
    private void enter() {
        ScratchLoans.begin();
        long s;
        do {
            s = state.get();
            if ((s & CLOSED) != 0) {
                ScratchLoans.end();
                throw new IllegalStateException("this codec is closed: " + this);
            }
        } while (!state.compareAndSet(s, s + 1));
    }

    /** Counts a call out; the last call out of a closed codec frees its tables. */
    private void exit() {
        ScratchLoans.end();
        if (state.decrementAndGet() == CLOSED) {
            freeTables();
        }
    }

    /** Runs once, when the codec is closed and no call is running. */
    private void freeTables() {
        encodeTables.free();
        for (int d = 0; d < k; d++) {
            final Tables t = columnPairTables.get(d);
            if (t != null) {
                t.free();
            }
        }
        for (DecodePlan plan : plans.values()) {
            plan.free();
        }
        plans.clear();
    }

    /** Test hook: sets what runs between checking direct buffer shards and coding them (null: nothing). */
    void afterBuffersChecked(Runnable hook) {
        afterBuffersChecked = hook;
    }

    /** Test hook: sets what runs after a missed plan's place in the cache was decided (null: nothing). */
    void afterPlanPlaceDecided(Runnable hook) {
        afterPlanPlaceDecided = hook;
    }

    private static void runHook(Runnable hook) {
        if (hook != null) {
            hook.run();
        }
    }

    /**
     * The caller's array of buffers, copied before it is validated: the addresses given to C come from
     * exactly the buffers that were checked, even if another thread changes the caller's array meanwhile.
     */
    private static ByteBuffer[] snapshot(ByteBuffer[] shards) {
        return shards == null ? null : shards.clone();
    }

    // ------------------------------------------------------------------ SharedArray stripe, in place

    /**
     * Computes the parity rows of a stripe in place, straight on its (shared) memory.
     *
     * <p>For every SharedArray method: the stripe is a UINT8 array of shape {@code (k + m, shardLength)},
     * contiguous (row i is shard i), not released. Once the call has taken its own reference (first thing
     * it does), a release of the caller's handle by another thread no longer unmaps the memory under C;
     * releasing a handle while another thread is still starting a call on it remains a misuse, as for any
     * SharedArray method.
     *
     * @param stripe the stripe; its parity rows are overwritten
     */
    public void encode(SharedArray stripe) {
        enter();
        try {
            long len = checks.stripe(stripe);
            CallScratch c = CallScratch.get();
            // a reference for the whole call: a release of the caller's handle from now on cannot unmap it under C
            try (SharedArray held = stripe.retain()) {
                long base = held.address();
                rows(c.srcAddr, base, len, 0, k);
                rows(c.dstAddr, base, len, k, m);
                try {
                    engine.dot(encodeTables, c.srcAddr, c.dstAddr, len, false);
                } catch (MemoryFaultException e) {
                    throw e.locateRow(base, n, len);
                }
            }
        } finally {
            exit();
        }
    }

    /**
     * Checks a stripe's parity rows against its data rows without modifying anything.
     *
     * @param stripe the stripe
     * @return true when every parity byte is what {@link #encode(SharedArray)} would write
     */
    public boolean verify(SharedArray stripe) {
        enter();
        try {
            long len = checks.stripe(stripe);
            CallScratch c = CallScratch.get();
            // a reference for the whole call: a release of the caller's handle from now on cannot unmap it under C
            try (SharedArray held = stripe.retain()) {
                long base = held.address();
                rows(c.srcAddr, base, len, 0, k);
                rows(c.dstAddr, base, len, k, m);
                try {
                    return engine.verify(encodeTables, c.srcAddr, c.dstAddr, len);
                } catch (MemoryFaultException e) {
                    throw e.locateRow(base, n, len);
                }
            }
        } finally {
            exit();
        }
    }

    /**
     * Rebuilds every missing row, data and parity, in place from any k present rows.
     *
     * @param stripe  the stripe
     * @param present which rows hold valid data; at least k must be true
     * @throws TooFewShardsException when fewer than k are present
     */
    public void reconstruct(SharedArray stripe, boolean[] present) {
        reconstructStripe(stripe, present, false);
    }

    /**
     * Like {@link #reconstruct(SharedArray, boolean[])} but rebuilds only missing data rows.
     *
     * @param stripe  the stripe
     * @param present which rows hold valid data; at least k must be true
     * @throws TooFewShardsException when fewer than k are present
     */
    public void reconstructData(SharedArray stripe, boolean[] present) {
        reconstructStripe(stripe, present, true);
    }

    /**
     * Replaces data row {@code dataIndex} with {@code newData} and patches the parity rows, as
     * {@link #update(byte[][], int, byte[])} does, in one pass over the parity. Readers of the stripe see
     * the change chunk by chunk (parity, then data); they should not read it concurrently.
     *
     * @param stripe    the stripe, the old data still in row {@code dataIndex}
     * @param dataIndex which data row changes, 0..k-1
     * @param newData   the new contents, shardLength bytes
     * @throws IndexOutOfBoundsException when {@code dataIndex} is not 0..k-1
     */
    public void update(SharedArray stripe, int dataIndex, byte[] newData) {
        enter();
        try {
            long len = checks.stripe(stripe);
            checks.dataIndex(dataIndex);
            if (newData == null) {
                throw new NullPointerException("newData must not be null");
            }
            Checks.newDataLength(newData.length, len);
            CallScratch c = CallScratch.get();
            DirectScratch d = DirectScratch.get();
            // per-thread memory that is kept: no bigger than the row (engines' address dots use only the pointer slots)
            d.staging((int) Math.min(UPDATE_CHUNK, len));
            long staged = d.stagingAddress();
            // a reference for the whole call: a release of the caller's handle from now on cannot unmap it under C
            try (SharedArray held = stripe.retain()) {
                long base = held.address();
                long row = base + dataIndex * len;
                // One pass over the parity: each chunk of the heap newData is staged off-heap (it stays in cache),
                // the two-column table applies col * (old ^ new) to every parity row, then the chunk replaces the
                // old data.
                c.srcAddr[1] = staged;
                final Tables column = columnPair(dataIndex);
                try {
                    for (long pos = 0, chunk; pos < len; pos += chunk) {
                        chunk = Math.min(UPDATE_CHUNK, len - pos);
                        RawMemory.write(newData, (int) pos, staged, (int) chunk);
                        c.srcAddr[0] = row + pos;
                        rows(c.dstAddr, base + pos, len, k, m);
                        engine.dot(column, c.srcAddr, c.dstAddr, chunk, true);
                        RawMemory.write(newData, (int) pos, row + pos, (int) chunk);
                    }
                } catch (MemoryFaultException e) {
                    throw e.locateRow(base, n, len);
                }
            }
        } finally {
            exit();
        }
    }

    private void reconstructStripe(SharedArray stripe, boolean[] callerPresent, boolean dataOnly) {
        enter();
        try {
            long len = checks.stripe(stripe);
            final boolean[] present = checks.present(callerPresent, CallScratch.get().present); // read once, see Checks
            DecodePlan plan = plan(present);
            try {
                int count = dataOnly ? plan.missingData : plan.missing.length;
                if (count == 0) {
                    return;
                }
                CallScratch c = CallScratch.get();
                // a reference for the whole call: a release of the caller's handle from now on cannot unmap it under C
                try (SharedArray held = stripe.retain()) {
                    long base = held.address();
                    for (int j = 0; j < k; j++) {
                        c.srcAddr[j] = base + plan.survivors[j] * len;
                    }
                    for (int r = 0; r < count; r++) {
                        c.dstAddr[r] = base + plan.missing[r] * len;
                    }
                    try {
                        engine.dot(dataOnly ? plan.dataOnly : plan.all, c.srcAddr, c.dstAddr, len, false);
                    } catch (MemoryFaultException e) {
                        throw e.locateRow(base, n, len);
                    }
                }
            } finally {
                done(plan);
            }
        } finally {
            exit();
        }
    }

    private static void rows(long[] into, long base, long len, int first, int count) {
        for (int i = 0; i < count; i++) {
            into[i] = base + (first + i) * len;
        }
    }

    // ------------------------------------------------------------------ shared

    /** @return how many decode plans are cached (for tests: the count stays within its bound) */
    int cachedPlanCount() {
        return plans.size();
    }

    /** @return the most decode plans this codec caches */
    int maxCachedPlans() {
        return maxCachedPlans;
    }

    /** @return the table bytes of the decode plan for this pattern (for tests: what a cached plan pins) */
    long planTableBytes(boolean[] present) {
        enter();
        try {
            DecodePlan plan = plan(checks.present(present, CallScratch.get().present));
            try {
                return (plan.all == null ? 0 : plan.all.bytes()) + (plan.dataOnly == null ? 0 : plan.dataOnly.bytes());
            } finally {
                done(plan);
            }
        } finally {
            exit();
        }
    }

    /**
     * Ends a call's use of a plan: an uncached plan's tables (native memory for NATIVE and ISAL, up to ~1.3 MB for
     * RS(128,128)) are freed now. Left to the garbage collector, which the Java heap rarely calls on while only the
     * native memory grows, a loop over new erasure patterns past the cache's bound held gigabytes.
     */
    private static void done(DecodePlan plan) {
        if (!plan.cached) {
            plan.free();
        }
    }

    /** @return the update tables of data shard {@code d}, made once (a thread that loses the race frees its own) */
    private Tables columnPair(int d) {
        final Tables t = columnPairTables.get(d);
        if (t != null) {
            return t;
        }
        final int[][] pair = new int[m][2];
        for (int p = 0; p < m; p++) {
            pair[p][0] = generator[k + p][d];
            pair[p][1] = generator[k + p][d];
        }
        final Tables made = engine.prepare(pair);
        if (columnPairTables.compareAndSet(d, null, made)) {
            return made;
        }
        made.free();
        return columnPairTables.get(d);
    }

    /**
     * The cached plan for this pattern; a hit allocates nothing. {@code present} is the call's own copy (never the
     * caller's array): the key and the plan are both made from it, so a plan is cached under its own pattern.
     */
    private DecodePlan plan(boolean[] present) {
        PatternKey probe = CallScratch.get().probe.set(present);
        DecodePlan plan = plans.get(probe);
        if (plan != null) {
            return plan;
        }
        final boolean cache = takePlanPlace();
        runHook(afterPlanPlaceDecided);
        try {
            plan = DecodePlan.create(generator, k, present, engine, cache);
        } catch (RuntimeException | Error e) {
            if (cache) {
                givePlanPlace();
            }
            throw e;
        }
        if (plan.cached) {
            DecodePlan raced = plans.putIfAbsent(probe.copy(), plan);
            if (raced != null) {
                givePlanPlace();
                plan.free(); // never published: no other call has it
                return raced;
            }
        }
        return plan; // an uncached one is this call's alone: done(plan) frees it
    }

    /** @return whether a place in the plan cache was free (and room in the shared budget), and is now this call's */
    private boolean takePlanPlace() {
        int taken;
        do {
            taken = planPlaces.get();
            if (taken >= maxCachedPlans) {
                return false;
            }
        } while (!planPlaces.compareAndSet(taken, taken + 1));
        if (sharedByProcess && SHARED_PLAN_BYTES.addAndGet(planBytes) > MAX_CACHED_PLAN_BYTES) {
            givePlanPlace();
            return false;
        }
        return true;
    }

    private void givePlanPlace() {
        planPlaces.decrementAndGet();
        if (sharedByProcess) {
            SHARED_PLAN_BYTES.addAndGet(-planBytes);
        }
    }

    /** @return the plan table bytes the shared codecs have cached, as counted against their budget (for tests) */
    static long sharedPlanBytes() {
        return SHARED_PLAN_BYTES.get();
    }

    /** @return the table bytes one of this codec's cached plans counts (for tests) */
    long planBytes() {
        return planBytes;
    }

    /** Ends a shared codec (for tests: {@link SharedStripes} keeps them for the process), giving its budget back. */
    void closeShared() {
        final long cached = plans.size();
        sharedByProcess = false;
        SHARED_PLAN_BYTES.addAndGet(-cached * planBytes);
        close();
    }

    @Override
    public String toString() {
        return "ErasureCodec[RS(" + k + "," + m + ") " + matrix + ", " + backend() + "/" + simdLevel() + "]";
    }

    /** Chooses the matrix, backend and (for testing or comparison) a lower native SIMD level. */
    public static final class Builder {
        private final int k;
        private final int m;
        private Matrix matrix = Matrix.VANDERMONDE;
        private Backend backend = Backend.AUTO;
        private SimdLevel simdLevel;

        private Builder(int k, int m) {
            this.k = k;
            this.m = m;
        }

        /**
         * @param matrix the generator matrix (default {@link Matrix#VANDERMONDE})
         * @return this builder
         */
        public Builder matrix(Matrix matrix) {
            if (matrix == null) {
                throw new NullPointerException("matrix must not be null");
            }
            this.matrix = matrix;
            return this;
        }

        /**
         * @param backend the implementation (default {@link Backend#AUTO})
         * @return this builder
         */
        public Builder backend(Backend backend) {
            if (backend == null) {
                throw new NullPointerException("backend must not be null");
            }
            this.backend = backend;
            return this;
        }

        /**
         * Pins the native kernels to one SIMD level instead of the best the CPU offers; only for the
         * NATIVE (or AUTO resolving to NATIVE) backend; {@link #build()} fails if the CPU lacks it.
         *
         * @param level one of SCALAR, SSSE3, AVX2, AVX2_GFNI, AVX512_GFNI
         * @return this builder
         */
        public Builder simdLevel(SimdLevel level) {
            if (level == null) {
                throw new NullPointerException("simdLevel must not be null");
            }
            if (level.nativeCode() < 0) {
                throw new IllegalArgumentException("SIMD level " + level + " cannot be requested");
            }
            this.simdLevel = level;
            return this;
        }

        /**
         * @return the codec
         * @throws IllegalStateException when the requested backend is not available here
         * @throws IllegalArgumentException when a SIMD level was given for the JAVA or ISAL backend
         */
        public ErasureCodec build() {
            if (simdLevel != null && (backend == Backend.JAVA || backend == Backend.ISAL)) {
                throw new IllegalArgumentException("simdLevel applies to the NATIVE backend only, not " + backend);
            }
            return new ErasureCodec(k, m, matrix, Engines.select(backend, simdLevel));
        }

        /**
         * For tests and measurements in this package: the codec on {@code engine}, whichever engine this JVM would
         * select (the scalar Java engine in a JVM that has the Vector API, say). Ignores the backend and SIMD level.
         */
        ErasureCodec build(Engine engine) {
            return new ErasureCodec(k, m, matrix, engine);
        }
    }
}
