package dev.sharray.pool;

import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import dev.sharray.reducers.CopyCache;
import dev.sharray.reducers.OpenedArrays;
import dev.sharray.reducers.SharingSession;
import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;
import org.agrona.DirectBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * A pool of worker JVMs that run {@link RemoteFunction}s. Arguments, captured values and results
 * cross through the {@link Reducers}: shared arrays as descriptors (zero-copy, pinned while in
 * flight), large heap arrays copied once into pool-owned shared memory, everything else encoded
 * natively. A large {@code HeapArray} or primitive array given as the argument itself reaches a function
 * declared on {@code NdArray}, {@code SharedArray} or {@code Object} as that pool-owned {@code SharedArray}
 * (valid for the task, freed after it), and a function declared on {@code double[]}, {@code HeapArray}
 * etc. as a heap copy of its own type. Tasks and results travel over Agrona ring buffers in a mapped file per worker; worker
 * output is forwarded line by line, prefixed with the worker's id.
 *
 * <p>Faults stay local: a worker that dies fails only the task it was running
 * ({@link WorkerCrashedException}) and is replaced; an exception thrown by a task reaches the caller as
 * a {@link RemoteTaskException} (one that ran its worker out of heap too, and that worker, which such an error may
 * leave broken for later tasks, is then replaced); a task over its timeout fails with {@link TaskTimeoutException} and its
 * worker is killed and replaced. When the last worker is gone and three attempts to start a replacement
 * failed, queued and later tasks fail at once with an {@link IllegalStateException} giving the reason.
 * {@link #close()} drains and stops, {@link #shutdownNow()} kills; neither leaves a process, file or
 * mapping behind.
 *
 * <p>Workers start faster from a class-data archive in the user cache ({@code ~/.cache/sharray/cds}), made
 * once per JDK, classpath and JVM options when the classpath holds only jars. On JDK 25 and later the first
 * pool of a configuration leaves a low-priority {@code java -Xshare:dump} running for about a second after
 * {@code close()} to write it. {@code -Dsharray.pool.cds=false} turns archives off.
 *
 * <p>Thread-safe. Callbacks attached to task futures may run on the pool's result thread (the failure of a
 * task whose worker died too), or on a thread that waits for a task (it reads answers while it waits): keep them
 * short and non-blocking, or use the {@code *Async} variants. One there may still call the pool and wait for the
 * futures it returns ({@code map}, {@code submit(..).join()}) and for the stages that depend on them
 * ({@code submit(..).thenApply(..).join()}): the thread reads answers while it waits. Waiting on the result
 * thread on any other future (one the pool did not make, such as {@code CompletableFuture.allOf}'s) stops the
 * pool's results until it ends; on a waiting caller's thread, it holds them up for at most about 5 ms.
 */
public final class ProcessPool implements AutoCloseable {
    private static final int RUNNING = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;
    private static final AtomicInteger POOL_SEQ = new AtomicInteger();
    /** How long a waiting thread polls for its own result before blocking. */
    private static final long HELP_SPIN_NANOS = 30_000;
    private static final long HELP_YIELD_NANOS = 200_000;
    /**
     * A counted caller that has not polled for this long is running callbacks, which may block or wait for another
     * task: the result thread reads the rings meanwhile.
     */
    private static final long CALLER_POLL_STALE_NANOS = 5_000_000;
    /** How long stopping waits for a replacement being started, and for the result thread. */
    private static final long STOP_GRACE_MILLIS = 5_000;
    /** The longest timeout that gets a deadline (~146 years); a longer one is none (see checkedTimeout). */
    private static final Duration LONGEST_TIMEOUT = Duration.ofNanos(Long.MAX_VALUE / 2);
    /** Per function class: the mean task time of its latest map call, 0 before one was measured (see TaskGrouping). */
    private static final ClassValue<AtomicLong> TASK_NANOS = new ClassValue<>() {
        @Override
        protected AtomicLong computeValue(Class<?> type) {
            return new AtomicLong();
        }
    };

    private final Config config;
    private final Path folder;
    private final String name;
    private final WorkerStarter starter;
    /** Binds each new worker's answers to {@link #onResult}. */
    private final Function<Worker, Frames.Sink> resultSinks = ResultSink::new;
    private final AtomicLong taskSeq = new AtomicLong();
    private final AtomicInteger mapSeq = new AtomicInteger();
    /** Tasks not yet sent, and which of them a worker gets. */
    private final TaskQueue queue = new TaskQueue();
    /** Completes a task cancelled by its caller while queued (one instance: dispatching allocates nothing). */
    private final Consumer<Task> finishCancelled = this::finishUnsent;
    private final IntPredicate currentWorker = this::isCurrentWorker;
    /** Tasks submitted and not yet completed (queued, running, or being finished). */
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong groupsSent = new AtomicLong();
    private final AtomicLong tasksQueuedBehind = new AtomicLong();
    private final AtomicInteger spinningWaiters = new AtomicInteger();
    /**
     * When a caller counted in {@link #spinningWaiters} last began a poll ({@link System#nanoTime()}); written with
     * release semantics, not volatile: it is read every ~0.2 ms by the result thread, and written at every turn of a
     * caller's poll loop.
     */
    @SuppressWarnings("unused") // through CALLER_POLLED_AT
    private long callerPolledAt;
    private static final java.lang.invoke.VarHandle CALLER_POLLED_AT;

    static {
        try {
            CALLER_POLLED_AT = java.lang.invoke.MethodHandles.lookup().findVarHandle(ProcessPool.class, "callerPolledAt",
                long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private final AtomicInteger state = new AtomicInteger(RUNNING);
    /** Guards reading the result rings and the {@link #workers} array's membership. */
    private final ReentrantLock pumpLock = new ReentrantLock();
    /** Decodes answers (pump lock held). */
    private final ResultDecoder resultDecoder;
    private final ExecutorService supervisor;
    private final ResultThread results;
    /** Set once every worker has died and no replacement could be started: tasks then fail at once. */
    private volatile IllegalStateException noWorkers;
    private final ThreadLocal<ArgumentEncoder> encoders;
    /** Shared copies of heap arguments kept for the next call (see {@link Builder#copyCacheBytes}). */
    private final CopyCache copies;
    private volatile Worker[] workers = new Worker[0];
    private volatile boolean shutdownNow;
    /** Set by a dispatcher that could not queue tasks behind running ones because a pump held the lock. */
    private volatile boolean queueBehindMissed;
    /** Test hook (null in use): runs in a dispatcher between claiming a worker and publishing its task. */
    private volatile Runnable beforeTaskPublished;
    /** Test hook (null in use): runs in a worker's exit handling once it has taken the worker's task. */
    private volatile Runnable afterExitTookTask;
    /** Test hook (null in use): runs when a task has timed out, before its worker is killed (pump lock held). */
    private volatile Runnable beforeTimeoutKill;
    /** Test hook (null in use): runs in the stop, once the result thread has ended, before the workers are stopped. */
    private volatile Runnable duringStop;
    /**
     * Answered tasks found by the current pump, completed after the pump lock is released; and tasks settled by a
     * worker's exit, completed by the next pump.
     */
    private Task doneHead;

    private ProcessPool(Config config) {
        this.config = config;
        this.copies = new CopyCache(config.copyCacheBytes);
        this.name = "sharray-pool-" + POOL_SEQ.incrementAndGet();
        final Path doorbellPath;
        try {
            folder = config.tempFolder != null ? SharedArrays.processFolder(config.tempFolder) : SharedArrays.processFolder();
            doorbellPath = folder.resolve(name + ".bell");
            final WorkerLauncher launcher = new WorkerLauncher(folder, name, doorbellPath, config.heapSize, config.maxBytes,
                config.retainMappingBytes, config.jvmOptions,
                config.reducers.registered().stream().map(r -> r.getClass().getName()).toList());
            starter = new WorkerStarter(folder, name, launcher, config.ringCapacity, config.out, config.err,
                () -> state.get() == CLOSED, () -> shutdownNow);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the pool's temp folder", e);
        }
        this.resultDecoder = new ResultDecoder(config.reducers);
        this.encoders = ThreadLocal.withInitial(() -> new ArgumentEncoder(config.reducers));
        this.supervisor = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, name + "-supervisor");
            t.setDaemon(true);
            return t;
        });
        this.results = new ResultThread(new ResultSource(), name, supervisor, doorbellPath, config.resultSleepNanos, config.err);
    }

    /**
     * Starts a pool of {@code workers} worker JVMs with default settings and waits until all are ready.
     *
     * @param workers number of worker JVMs, at least 1
     * @return the running pool
     */
    public static ProcessPool create(int workers) {
        return builder().workers(workers).build();
    }

    /** @return a builder with default settings (one worker per available processor) */
    public static Builder builder() {
        return new Builder();
    }

    private void start() {
        final List<Worker> started = new ArrayList<>();
        final List<Worker> launched = new ArrayList<>();
        int awaited = 0; // awaitHello cleans up a worker it gives up on; later ones are ours to clean
        try {
            for (int i = 0; i < config.workers; i++) {
                launched.add(starter.launch(resultSinks));
            }
            for (Worker w : launched) {
                awaited++;
                started.add(starter.awaitHello(w, resultSinks));
            }
        } catch (RuntimeException | Error e) {
            for (int i = awaited; i < launched.size(); i++) {
                starter.abandon(launched.get(i));
            }
            workers = started.toArray(new Worker[0]);
            shutdownNow();
            throw e;
        }
        workers = started.toArray(new Worker[0]);
        for (Worker w : started) {
            w.state.set(Worker.IDLE);
            watchExit(w);
        }
        results.start();
    }

    private void watchExit(Worker w) {
        w.process.onExit().thenRun(() -> {
            try {
                supervisor.execute(() -> onWorkerExit(w));
            } catch (RejectedExecutionException closing) {
                // the pool is stopping: stop() handles every worker itself
            }
        });
    }

    // ------------------------------------------------------------------------------------ submitting

    /**
     * Runs {@code fn(arg)} in a worker, with the pool's default timeout.
     *
     * @param fn  the function
     * @param arg its argument; arrays in it are pinned until the task is done, so the caller may
     *            release them right after this returns
     * @param <T> argument type
     * @param <R> result type
     * @return the result's future; it fails with {@link RemoteTaskException}, {@link WorkerCrashedException}
     *         or {@link TaskTimeoutException}. Cancelling it ({@code cancel(true)} too), or completing it yourself
     *         ({@code orTimeout}...), keeps a queued task from running and releases its arrays at once; a running
     *         one runs to its end in its worker, which stays busy meanwhile (its result is dropped): a timeout is
     *         what stops a running task
     * @throws IllegalStateException when the pool is closed
     * @throws dev.sharray.reducers.ReducerException when {@code fn} or {@code arg} holds a value no reducer handles,
     *         or {@code arg} is a collection that arrives as a class {@code fn}'s parameter cannot hold (a
     *         {@code TreeMap} is rebuilt as a {@code LinkedHashMap}: declare the parameter as {@code Map})
     */
    public <T, R> CompletableFuture<R> submit(RemoteFunction<T, R> fn, T arg) {
        return submit(fn, arg, config.taskTimeout);
    }

    /**
     * Runs {@code fn(arg)} in a worker with its own timeout.
     *
     * @param fn      the function
     * @param arg     its argument
     * @param timeout the longest the task may run once started, positive, or {@code null} for none (as is one too
     *                long for a deadline, past ~146 years)
     * @param <T>     argument type
     * @param <R>     result type
     * @return the result's future
     * @throws IllegalStateException when the pool is closed
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    @SuppressWarnings("unchecked")
    public <T, R> CompletableFuture<R> submit(RemoteFunction<T, R> fn, T arg, Duration timeout) {
        Objects.requireNonNull(fn, "fn");
        timeout = checkedTimeout(timeout);
        final SharingSession sharing = newSharing();
        final Task task;
        final boolean interrupted = Thread.interrupted(); // see map
        try {
            FunctionCodec.checkArgumentArrives(fn, arg, config.reducers);
            final FunctionCodec.Encoded encoded = FunctionCodec.encode(fn, config.reducers, sharing);
            task = newTask(encoded, arg, timeout, new Task.Batch(1, sharing::close), sharing, -1);
        } catch (RuntimeException | Error e) { // e.g. a user reducer's AssertionError: its copies must not leak
            sharing.close();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        enqueue(task);
        return (CompletableFuture<R>) task.future;
    }

    /**
     * Runs {@code fn} on every argument in parallel and returns the results in argument order. The
     * function is encoded once, and an array appearing in several arguments is shared once. A worker decodes
     * a function with state (captured values, fields) once per call, not once per task, unless it captured
     * shared or large arrays (those are opened and released with each task); the tasks of one call that run
     * on one worker thus share one copy of the function's values, as calls in one JVM would.
     *
     * <p>Short tasks (well under a millisecond, as measured during the call) go to a worker several per
     * message, so they do not each wait for a round trip through this JVM; each still gets its own result,
     * failure and timeout (counted from when the task before it in the message was answered). A worker that
     * dies or times out fails only the task it was running: those of its message that had not started run
     * on another worker.
     *
     * <p>Not interruptible: an interrupt of the calling thread neither stops the call's tasks nor ends the wait;
     * the call returns or throws as usual, with the thread's interrupt status kept.
     *
     * @param fn   the function
     * @param args the arguments
     * @param <T>  argument type
     * @param <R>  result type
     * @return the results, in the order of {@code args}
     * @throws RemoteTaskException when a function threw: the first failure in argument order, thrown after
     *         every task has finished (later failures are suppressed into it)
     * @throws WorkerCrashedException when a worker died running a task (the first failure in argument order,
     *         as above)
     * @throws TaskTimeoutException when a task ran past its timeout (the first failure in argument order, as
     *         above)
     * @throws IllegalStateException when the pool is closed
     */
    public <T, R> List<R> map(RemoteFunction<T, R> fn, List<? extends T> args) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(args, "args");
        if (args.isEmpty()) {
            return new ArrayList<>();
        }
        final SharingSession sharing = newSharing();
        final List<Task> tasks = new ArrayList<>(args.size());
        final TaskGrouping grouping;
        // encoded with the caller's interrupt put aside: sharing a large heap array creates a file, mapped through
        // a channel that an interrupt closes ("cannot create an array in ...: null"), where the call is documented
        // as not interruptible
        final boolean interrupted = Thread.interrupted();
        try {
            for (T arg : args) {
                FunctionCodec.checkArgumentArrives(fn, arg, config.reducers);
            }
            FunctionCodec.Encoded encoded = FunctionCodec.encode(fn, config.reducers, sharing);
            Runnable release = sharing::close;
            // a function with state (captured values, fields) is Java-deserialized by each worker once per call,
            // not once per task. Not one that captured arrays: those are opened and released with each task,
            // as the lifecycle promises, where a cached function would hold them past the call's end.
            if (encoded.id == 0 && args.size() > 1 && sharing.size() == 0) {
                final int mapId = nextMapId();
                encoded = encoded.forMap(mapId);
                release = () -> {
                    try {
                        sharing.close();
                    } finally {
                        forgetMapFunction(mapId);
                    }
                };
            }
            // tasks of a call whose function the workers cache may share messages (see TaskGrouping)
            grouping = encoded.id != 0 || encoded.mapId != 0 ? new TaskGrouping(TASK_NANOS.get(fn.getClass()).get()) : null;
            final Task.Batch batch = new Task.Batch(args.size(), release, grouping);
            for (T arg : args) {
                tasks.add(newTask(encoded, arg, config.taskTimeout, batch, sharing, tasks.size()));
            }
        } catch (RuntimeException | Error e) { // e.g. a user reducer's AssertionError: its copies must not leak
            sharing.close();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        for (int i = 0; i < tasks.size(); i++) {
            try {
                // all queued before any is sent, so idle workers get groups rather than one task each
                enqueue(tasks.get(i), i == tasks.size() - 1);
            } catch (RuntimeException e) {
                // enqueue counted the refused task done; the rest never run: count them too, so the batch
                // releases its pinned arrays and shared copies
                for (int j = i + 1; j < tasks.size(); j++) {
                    tasks.get(j).batch.taskDone();
                }
                dispatch(); // the ones queued before it still run: close() drains them
                throw e;
            }
        }
        try {
            return collect(tasks);
        } finally {
            if (grouping != null && grouping.meanNanos() != 0) {
                TASK_NANOS.get(fn.getClass()).set(grouping.meanNanos());
            }
        }
    }

    /** Waits for every task of a map call; returns the results in order or throws the first failure. */
    @SuppressWarnings("unchecked")
    private <R> List<R> collect(List<Task> tasks) {
        awaitLast(tasks);
        final List<R> results = new ArrayList<>(tasks.size());
        RuntimeException failure = null;
        for (Task t : tasks) {
            try {
                results.add((R) t.future.join());
            } catch (CompletionException | CancellationException e) {
                final Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                final RuntimeException re = cause instanceof RuntimeException ? (RuntimeException) cause
                    : new CompletionException(cause);
                if (failure == null) {
                    failure = re;
                } else if (failure != re) {
                    failure.addSuppressed(re);
                }
                results.add(null);
            }
        }
        if (failure != null) {
            // the call fails as a whole: the arrays in the results that did arrive are nobody's
            for (Task t : tasks) {
                try {
                    releaseResultArrays(t);
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
            }
            throw failure;
        }
        return results;
    }

    /**
     * Waits for the call's last task before collecting: tasks finish roughly in order, so the caller then finds
     * the others done, and a call of long tasks wakes it once or twice rather than once per task (each wake-up
     * takes a core from a worker on a small machine).
     */
    private static void awaitLast(List<Task> tasks) {
        final Task last = tasks.get(tasks.size() - 1);
        if (tasks.size() > 1 && !last.future.isDone()) {
            try {
                last.future.join();
            } catch (CompletionException | CancellationException e) {
                // collected in argument order below, with the call's other failures
            }
        }
    }

    /** @return a new map-call id, never 0 (0 means "not cached"); ids wrap after 2^32 calls, long after their entries are gone */
    private int nextMapId() {
        int id;
        do {
            id = mapSeq.incrementAndGet();
        } while (id == 0);
        return id;
    }

    /** A map call is over: workers that cache its function drop it (a dead worker's cache died with it). */
    private void forgetMapFunction(int mapId) {
        for (Worker w : workers) {
            w.forget(mapId);
        }
    }

    /** Test hook: how many workers have raised their sleeping flag (see {@link RingFile}). */
    int sleepingWorkers() {
        int n = 0;
        for (Worker w : workers) {
            if (w.asleep()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Test hook: holds the pump lock on this thread while {@code during} runs, then lets go of it as a pump
     * does, with nothing read.
     */
    void holdPumpLockWhile(Runnable during) {
        pumpLock.lock();
        try {
            during.run();
        } finally {
            pumpLock.unlock();
        }
        afterPump(null);
    }

    /**
     * Test hook: {@code hook} runs in the next dispatches between claiming a worker and publishing its task
     * (null: none).
     */
    void beforeTaskPublished(Runnable hook) {
        beforeTaskPublished = hook;
    }

    /** Test hook: {@code hook} runs in the exit handling of workers, under the pump lock, once it has taken the task. */
    void afterExitTookTask(Runnable hook) {
        afterExitTookTask = hook;
    }

    /** Test hook: {@code hook} runs when a task has timed out, under the pump lock, before its worker is killed. */
    void beforeTimeoutKill(Runnable hook) {
        beforeTimeoutKill = hook;
    }

    /** Test hook: {@code hook} runs in the stop, before the workers are stopped (null: none). */
    void duringStop(Runnable hook) {
        duringStop = hook;
    }

    private static void runHook(Runnable hook) {
        if (hook != null) {
            hook.run();
        }
    }

    /** Test hook: whether a dispatcher left a queue-behind for the pump lock's holder. */
    boolean queueBehindMissed() {
        return queueBehindMissed;
    }

    /** Test hook: whether the result thread sleeps on its doorbell, or is about to. */
    boolean resultThreadSleeping() {
        return results.sleeping();
    }

    /** Test hook: the longest sleep the result thread chose for its last sleep on its doorbell, 0 before one. */
    long resultSleepGuardNanos() {
        return results.lastGuardNanos();
    }

    /** Test hook: whether the result thread has a doorbell to sleep on (see {@link ResultDoorbell}). */
    boolean resultDoorbellBound() {
        return results.doorbellBound();
    }

    /** Test hook: sends pre-encoded (possibly hostile) function and argument bytes as a task. */
    CompletableFuture<Object> submitEncoded(FunctionCodec.Encoded fn, byte[] arg) {
        final Task.Batch alone = new Task.Batch(1, null);
        final Task t = new Task(taskSeq.incrementAndGet(), new TaskFuture<>(this, alone), fn, arg, null, alone, -1);
        t.future.bind(t);
        enqueue(t);
        return t.future;
    }

    /**
     * Splits {@code array} into views of {@code rowsPerChunk} rows along axis 0 and runs {@code fn} on
     * each view in parallel. Workers map the same memory: what {@code fn} writes into its view is in
     * {@code array} when this returns. The views are released when this returns. A function that works
     * through its whole chunk can start with {@link SharedArray#prefault() chunk.prefault()}: one call instead
     * of a page fault per 4 KiB page the first time a worker meets the chunk, next to nothing after that. The
     * pool does not do it for every function: one that reads a few elements would pay for pages it never
     * touches.
     *
     * @param array        the array (any view with at least one dimension)
     * @param rowsPerChunk rows per chunk, at least 1; the last chunk may be shorter
     * @param fn           the function run on each chunk
     * @param <R>          result type
     * @return one result per chunk, in row order
     */
    public <R> List<R> mapChunks(SharedArray array, long rowsPerChunk, RemoteFunction<SharedArray, R> fn) {
        Objects.requireNonNull(array, "array");
        if (rowsPerChunk < 1) {
            throw new IllegalArgumentException("rowsPerChunk must be at least 1, was " + rowsPerChunk);
        }
        if (array.ndim() < 1) {
            throw new IllegalArgumentException("mapChunks needs an array with at least one dimension");
        }
        final long rows = array.shape()[0];
        final List<SharedArray> chunks = new ArrayList<>();
        try {
            for (long start = 0; start < rows; start += rowsPerChunk) {
                chunks.add(array.slice(0, start, Math.min(rows, start + rowsPerChunk), 1));
            }
            return map(fn, chunks);
        } finally {
            chunks.forEach(SharedArray::release);
        }
    }

    private Task newTask(FunctionCodec.Encoded fn, Object arg, Duration timeout, Task.Batch batch, SharingSession sharing,
                         int position) {
        final byte[] argBytes = encoders.get().encode(arg, sharing);
        final Task t = new Task(taskSeq.incrementAndGet(), new TaskFuture<>(this, batch), fn, argBytes, timeout, batch, position);
        t.future.bind(t); // a future its caller completes takes its task off the queue (see TaskFuture#cancel)
        return t;
    }

    /**
     * @return {@code timeout}, or {@code null} (none) for one too long for a deadline: deadlines are
     *         {@code System.nanoTime()} values, which past ~146 years would overflow (or fail, as
     *         {@link Duration#toNanos()} does past ~292 years) in the dispatcher, leaving the task unsent and its
     *         worker claimed
     * @throws IllegalArgumentException when it is zero or negative: the task would time out at once, killing its worker
     */
    private static Duration checkedTimeout(Duration timeout) {
        if (timeout == null) {
            return null;
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        return timeout.compareTo(LONGEST_TIMEOUT) > 0 ? null : timeout;
    }

    /** @return the sharing policy of one submit or map call */
    private SharingSession newSharing() {
        return new SharingSession(config.maxBytes, config.tempFolder, copies);
    }

    private void enqueue(Task t) {
        enqueue(t, true);
    }

    /**
     * Queues a task, counted in flight; hands queued tasks to idle workers when {@code dispatchNow}.
     *
     * @throws IllegalStateException when the pool is closed (the task is counted done)
     */
    private void enqueue(Task t, boolean dispatchNow) {
        // count first, check state second: close() sets the state first and then waits for the count,
        // so a task either is refused here or is drained by close()
        final int before = inFlight.getAndIncrement();
        if (state.get() != RUNNING) {
            inFlight.decrementAndGet();
            t.batch.taskDone();
            throw new IllegalStateException("ProcessPool is closed: no new tasks are accepted");
        }
        queue.offer(t);
        if (noWorkers != null) {
            // every worker died and none could be started: fail now instead of waiting forever (whichever
            // of this check and replace()'s failPending sees the task first fails it)
            failPendingNoWorkers();
            return;
        }
        if (state.get() == CLOSED) {
            // shutdownNow() does not wait for the count: it may have drained the queue before this offer
            cancelPending();
            return;
        }
        if (before == 0) {
            results.taskQueuedOnIdlePool();
        }
        if (dispatchNow) {
            dispatch();
        }
    }

    /** @return a task's own shutdown failure (callers add suppressed exceptions to it: none may be shared) */
    private static CancellationException shutDown() {
        return new CancellationException("ProcessPool was shut down");
    }

    /** Fails every queued task: the pool is closed and no worker will take them. */
    private void cancelPending() {
        for (Task t = queue.poll(); t != null; t = queue.poll()) {
            t.error = shutDown();
            finish(t);
        }
    }

    /** Hands queued tasks to idle workers, from whichever thread has just made progress possible. */
    private void dispatch() {
        while (!queue.isEmpty()) {
            final Worker w = claimIdleWorker();
            if (w == null) {
                if (queueBehindRunningTasks()) {
                    continue; // a worker went idle meanwhile, or another dispatcher missed the lock: look again
                }
                return;
            }
            Task t = queue.take(w.id, currentWorker);
            while (t != null && t.future.isDone()) {
                // cancelled by the caller while queued: never runs
                finishUnsent(t);
                t = queue.take(w.id, currentWorker);
            }
            if (t == null) {
                w.state.compareAndSet(Worker.BUSY, Worker.IDLE);
                continue;
            }
            queue.groupBehind(t, workers.length, finishCancelled);
            // the clock only for a deadline or for the call's time per task (TaskGrouping)
            final long now = t.timeout != null || t.batch.grouping != null ? System.nanoTime() : 0;
            int index = 0;
            for (Task g = t; g != null; g = g.nextInGroup) {
                g.worker = w;
                g.sentAt = now;
                g.groupIndex = ++index;
            }
            t.deadline = t.timeout == null ? 0 : now + Math.max(1, t.timeout.toNanos());
            queue.placed(t, w.id);
            runHook(beforeTaskPublished);
            w.inFlight.set(t);
            if (t.deadline != 0) {
                results.deadlineStarted();
            }
            final boolean group = t.nextInGroup != null; // read now: once sent, a task may be queued behind it
            boolean sent;
            try {
                sent = w.send(t);
            } catch (RuntimeException | Error e) {
                // the message could not be encoded (e.g. out of memory for a huge one): fail its tasks only
                if (w.inFlight.compareAndSet(t, null)) {
                    w.state.compareAndSet(Worker.BUSY, Worker.IDLE);
                    for (Task g = t; g != null; ) {
                        final Task next = g.nextInGroup;
                        g.nextInGroup = null;
                        g.error = e;
                        finish(g);
                        g = next;
                    }
                }
                continue;
            }
            if (!sent && w.inFlight.compareAndSet(t, null)) {
                // the worker died before taking them: the tasks never ran, so they may run elsewhere
                queue.requeueUnstarted(t);
                if (state.get() == CLOSED) {
                    cancelPending();
                }
            } else if (sent && group) {
                groupsSent.incrementAndGet();
            }
        }
    }

    /**
     * With every worker busy, sends a worker whose running task is its only one the next queued task of the
     * same map call, so the worker starts it the moment the running one ends instead of idling through the
     * round trip of the answer and the next task. On a busy small machine that round trip waits for the
     * parent to be scheduled: ~1 ms between tasks of ~10 ms on 2 cores with 2 workers. Only for calls whose
     * tasks outlast {@link TaskGrouping#TARGET_NANOS} (shorter ones travel in groups), and only while at least
     * as many of the call's tasks wait as there are workers, so the call's last tasks still go to whichever
     * worker is free first. Under the pump lock, as every change to a running task's chain is. When another
     * thread holds it, this one leaves {@link #queueBehindMissed} for it and tries once more: a pump that lets go
     * of the lock and finds the flag dispatches again, so the chance is not lost until the first answer.
     *
     * @return whether the caller should look for work to dispatch again: a dispatcher left the flag meanwhile,
     *         or a worker went idle while a task was off the queue here
     */
    private boolean queueBehindRunningTasks() {
        final Task head = queue.peek();
        if (head == null || head.batch.grouping == null || !head.batch.grouping.tasksOutlastTarget()) {
            return false; // the common case of short tasks: no lock, no queue traffic on their hot path
        }
        if (!pumpLock.tryLock()) {
            // raised before the second try: either that try succeeds, or the holder unlocks after the flag is up
            queueBehindMissed = true;
            if (!pumpLock.tryLock()) {
                return false;
            }
        }
        Task failed = null;
        boolean offeredBack = false;
        try {
            for (Worker w : workers) {
                final Task running = w.inFlight.get();
                if (running == null || !running.sent || running.nextInGroup != null || w.state.get() != Worker.BUSY) {
                    continue;
                }
                final Task next = queue.take(w.id, currentWorker);
                if (next == null) {
                    break;
                }
                if (next.batch != running.batch || !queue.worthQueueingBehind(next, workers.length)) {
                    queue.offerFirst(next);
                    offeredBack = true;
                    continue;
                }
                next.worker = w;
                next.groupIndex = 1;
                next.sentAt = System.nanoTime();
                running.nextInGroup = next; // the deadline starts when the worker answers the running task
                boolean sent;
                try {
                    sent = w.send(next);
                } catch (RuntimeException | Error e) {
                    running.nextInGroup = null;
                    next.error = e;
                    next.nextDone = failed;
                    failed = next;
                    continue;
                }
                if (sent) {
                    queue.placed(next, w.id);
                    tasksQueuedBehind.incrementAndGet();
                } else {
                    running.nextInGroup = null; // the worker is dying: its exit requeues nothing of this one
                    next.worker = null;
                    queue.offerFirst(next);
                    offeredBack = true;
                }
            }
        } finally {
            pumpLock.unlock();
        }
        finishInOrder(failed);
        // another dispatcher left the flag while this one held the lock (or this one did, before its second try);
        // a worker that went idle while a task was off the queue here found the queue empty
        return takeQueueBehindMissed() || offeredBack && hasIdleWorker();
    }

    private boolean isCurrentWorker(int id) {
        for (Worker w : workers) {
            if (w.id == id) {
                return true;
            }
        }
        return false;
    }

    private boolean hasIdleWorker() {
        for (Worker w : workers) {
            if (w.state.get() == Worker.IDLE) {
                return true;
            }
        }
        return false;
    }

    /** @return how many tasks were sent to a worker behind the one it was running, since the pool started (for tests) */
    long tasksQueuedBehind() {
        return tasksQueuedBehind.get();
    }

    /** @return the id of the worker that last ran argument position {@code position} of a placed map call, 0 if none (for tests) */
    int workerForPosition(int position) {
        return queue.workerFor(position);
    }

    /** @return how many messages carried more than one task, since the pool started (for tests) */
    long groupsSent() {
        return groupsSent.get();
    }

    private Worker claimIdleWorker() {
        for (Worker w : workers) {
            if (w.claim()) {
                return w;
            }
        }
        return null;
    }

    // -------------------------------------------------------------------------------------- results

    /**
     * Called by a waiting thread: polls results itself for a short while before the caller blocks; not for a
     * task of a call whose tasks are measured long (the polling would only take a core from the workers).
     */
    void helpUntilDone(TaskFuture<?> f) {
        helpUntilDone(f, Long.MAX_VALUE);
    }

    /**
     * As {@link #helpUntilDone(TaskFuture)}; on the result thread (a callback attached to a task's future waits
     * for another task: a follow-up map, a retry), polls until the task is done or {@code timeoutNanos} have
     * passed. That thread reads the answers: were it to block, nothing would complete the task it waits for.
     */
    void helpUntilDone(TaskFuture<?> f, long timeoutNanos) {
        if (state.get() == CLOSED) {
            settleStopped(); // nothing but stop() would complete it, and this thread may be running stop()'s callbacks
        }
        if (results.isCurrentThread()) {
            final long start = System.nanoTime();
            while (!f.isDone() && System.nanoTime() - start < timeoutNanos) {
                if (state.get() == CLOSED) {
                    // closed while we wait: stop() would settle a queued task only after its wait for this thread
                    settleStopped();
                }
                if (tryPump() == 0) {
                    LockSupport.parkNanos(200_000); // as close() drains: no doorbell to sleep on here
                }
            }
            return;
        }
        if (f.expectsLongWait()) {
            return;
        }
        spinningWaiters.incrementAndGet();
        try {
            final long start = System.nanoTime();
            while (!f.isDone()) {
                final long now = System.nanoTime();
                CALLER_POLLED_AT.setRelease(this, now);
                if (tryPump() > 0) {
                    continue;
                }
                final long waited = now - start;
                if (waited < HELP_SPIN_NANOS) {
                    Thread.onSpinWait();
                } else if (waited < HELP_SPIN_NANOS + HELP_YIELD_NANOS) {
                    Thread.yield();
                } else {
                    break;
                }
            }
        } finally {
            if (spinningWaiters.decrementAndGet() == 0 && inFlight.get() > 0) {
                results.callerStoppedPolling();
            }
        }
    }

    /** Polls every worker's result ring once if no other thread is; completes what arrived. */
    private int tryPump() {
        return tryPump(false);
    }

    /**
     * @param beforeSleep first raise every worker's parent-sleeping flag (under the pump lock: their rings stay
     *                    mapped), so this look at the rings is the result thread's last before it sleeps
     * @return the results found; when another thread holds the pump lock, 0, or -1 with {@code beforeSleep}
     */
    private int tryPump(boolean beforeSleep) {
        if (!pumpLock.tryLock()) {
            return beforeSleep ? -1 : 0;
        }
        final int work;
        final Task done;
        // an interrupt of the thread that pumps (a waiting caller's, or one a callback left on the result thread)
        // is not meant for the answers it reads, which may be other callers': opening a result's arrays maps
        // files through channels that an interrupt closes, which failed those tasks (MalformedDataException)
        final boolean interrupted = Thread.interrupted();
        try {
            if (beforeSleep) {
                for (Worker w : workers) {
                    w.rings.markParentSleeping();
                }
            }
            work = pumpLocked();
            done = takeDone();
        } finally {
            pumpLock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt(); // the caller's, kept as the wait promises
            }
        }
        afterPump(done);
        return work;
    }

    /**
     * A pump has let go of the lock: completes the tasks it found, and dispatches for a dispatcher that found
     * the lock held ({@link #queueBehindMissed}).
     */
    private void afterPump(Task done) {
        if (done != null) {
            finishAll(done); // dispatches, which serves a missed queue-behind too
            if (state.get() == CLOSED && !queue.isEmpty()) {
                cancelPending(); // a timed-out task's group was requeued after shutdownNow() drained the queue
            }
        } else if (takeQueueBehindMissed()) {
            dispatch();
        }
    }

    /** @return whether a dispatcher left a queue-behind for the pump lock's holder; lowers the flag */
    private boolean takeQueueBehindMissed() {
        if (!queueBehindMissed) {
            return false; // the common case only reads it
        }
        queueBehindMissed = false;
        return true;
    }

    private int pumpLocked() {
        int work = 0;
        boolean deadlines = false;
        for (Worker w : workers) {
            work += pollWorker(w, 16);
            final Task t = w.inFlight.get();
            deadlines |= t != null && t.deadline != 0;
        }
        if (deadlines) {
            checkTimeouts();
        }
        return work;
    }

    /**
     * Reads up to {@code limit} messages from a worker's result ring (pump lock held). A garbled frame (Frames
     * refuses it) means the worker cannot be trusted any more: it is killed, which fails its task as a crash
     * and starts a replacement, and its ring is not read further.
     */
    private int pollWorker(Worker w, int limit) {
        try {
            return w.reader.poll(w.resultSink, limit);
        } catch (RuntimeException e) {
            config.err.println("sharray pool: worker " + w.id + " sent a malformed message (" + e.getMessage()
                + "); killing it");
            w.state.compareAndSet(Worker.IDLE, Worker.KILLED);
            w.state.compareAndSet(Worker.BUSY, Worker.KILLED);
            w.process.destroyForcibly();
            return 0;
        }
    }

    /**
     * Fails each running task past its deadline and kills its worker. The task after it stays with the worker
     * until its exit: the timed-out task may still answer before the kill lands and the worker go on to the
     * next one, which then must not run again elsewhere ({@link #onWorkerExit} decides).
     */
    private void checkTimeouts() {
        final long now = System.nanoTime();
        for (Worker w : workers) {
            final Task t = w.inFlight.get();
            final Task next = t == null ? null : t.nextInGroup;
            if (t != null && t.deadline != 0 && now - t.deadline > 0 && w.inFlight.compareAndSet(t, next)) {
                w.state.set(Worker.KILLED);
                w.timedOut = t;
                w.afterTimedOut = next;
                t.error = new TaskTimeoutException(t.timeout, w.id);
                t.nextInGroup = null;
                t.pinnedUntilWorkerExit = true;
                w.pinnedUntilExit.set(t);
                pushDone(t);
                runHook(beforeTimeoutKill);
                w.process.destroyForcibly();
            }
        }
    }

    /** A worker's answers, for {@link #onResult}. */
    private final class ResultSink implements Frames.Sink {
        private final Worker worker;

        ResultSink(Worker worker) {
            this.worker = worker;
        }

        @Override
        public void onMessage(DirectBuffer buffer, int offset, int length) {
            onResult(worker, buffer, offset, length, null, length);
        }

        @Override
        public void onUnassembled(DirectBuffer head, int offset, int length, long messageLength, OutOfMemoryError error) {
            onResult(worker, head, offset, length, error, messageLength);
        }
    }

    /**
     * Decodes one message from a worker's result ring (pump lock held).
     *
     * @param tooLarge      null, or why this JVM could not hold the message: then {@code buffer} has only its first
     *                      bytes, and the task fails
     * @param messageLength the whole message's length
     */
    private void onResult(Worker w, DirectBuffer buffer, int offset, int length, OutOfMemoryError tooLarge, long messageLength) {
        if (length < Protocol.RESULT_HEADER || buffer.getByte(offset) != Protocol.RESULT) {
            config.err.println("[" + name + "] protocol error from " + w + ": unexpected message; killing it");
            w.state.set(Worker.KILLED);
            w.process.destroyForcibly();
            return;
        }
        final long taskId = buffer.getLong(offset + 1, ByteOrder.LITTLE_ENDIAN);
        final Task t = w.inFlight.get();
        if (t == null || t.id != taskId) {
            // the answer to a task that already timed out: the worker may have gone on to the next one
            w.timedOutAnswered |= w.timedOut != null && w.timedOut.id == taskId;
            return;
        }
        // a worker whose task ran it out of heap exits after this answer (see WorkerLoop.exhaustedHeap): the tasks
        // sent to it after this one never start, and run elsewhere; its exit then starts a replacement
        final boolean retiring = (buffer.getByte(offset + 10) & Protocol.RETIRING) != 0;
        // the next task of its group, or one queued behind it, starts now: its deadline counts from here
        final Task next = retiring ? null : t.nextInGroup;
        if (next != null && (next.timeout != null || next.groupIndex == 1)) {
            final long now = System.nanoTime();
            if (next.timeout != null) {
                next.deadline = now + Math.max(1, next.timeout.toNanos());
            }
            if (next.groupIndex == 1) {
                next.sentAt = now; // a message of its own: its time per task counts from its start
            }
        }
        if (!w.inFlight.compareAndSet(t, next)) {
            return;
        }
        if (retiring) {
            w.state.set(Worker.KILLED); // no task is given to it any more
            queue.requeueUnstarted(t.nextInGroup);
            t.nextInGroup = null;
        }
        if (next != null && next.timeout != null) {
            results.deadlineStarted();
        }
        t.nextInGroup = null;
        if (next == null && t.batch.grouping != null) {
            // a whole message answered: its time per task, the parent's own delays spread over the group
            t.batch.grouping.answered((System.nanoTime() - t.sentAt) / t.groupIndex);
        }
        if (tooLarge == null) {
            resultDecoder.decode(t, buffer, offset, length);
        } else {
            resultDecoder.fail(t, buffer, offset, messageLength, tooLarge);
        }
        if (next == null) {
            w.state.compareAndSet(Worker.BUSY, Worker.IDLE);
        }
        pushDone(t);
    }

    private void pushDone(Task t) {
        t.nextDone = doneHead;
        doneHead = t;
    }

    private Task takeDone() {
        final Task head = doneHead;
        doneHead = null;
        return head;
    }

    /** Completes answered tasks (outside the pump lock: callbacks may run here) and feeds idle workers. */
    private void finishAll(Task head) {
        // the list is newest first; reverse so callers see completions in arrival order
        Task reversed = null;
        while (head != null) {
            final Task next = head.nextDone;
            head.nextDone = reversed;
            reversed = head;
            head = next;
        }
        dispatch();
        finishInOrder(reversed);
    }

    /** Completes the tasks of a list linked by {@link Task#nextDone}, first to last. */
    private void finishInOrder(Task first) {
        for (Task t = first; t != null; ) {
            final Task next = t.nextDone;
            t.nextDone = null;
            finish(t);
            t = next;
        }
    }

    private void finish(Task t) {
        if (t.resultHoldsArrays) {
            t.worker.sendControl(Protocol.RELEASE, t.id);
        }
        try {
            if (!t.pinnedUntilWorkerExit) {
                t.batch.taskDone();
            }
        } catch (RuntimeException e) {
            // releasing the call's pinned arrays failed: the task still completes, and says so
            if (t.error == null) {
                t.error = e;
            } else {
                t.error.addSuppressed(e);
            }
        }
        // uncount before completing: a caller woken by the completion then sees an idle pool and does
        // not wake the result thread for nothing
        inFlight.decrementAndGet();
        final Object result = t.result;
        t.result = null;
        if (t.error != null) {
            t.future.settleExceptionally(t.error);
            releaseResultArrays(t); // none unless the result was read before a release failure above
        } else if (!t.future.settle(result)) {
            // cancelled or timed out by the caller meanwhile: nobody will release the result's arrays
            releaseResultArrays(t);
        }
    }

    /**
     * Releases the handles of a result that is not handed to anyone. Runs after the task's future completed,
     * inside loops over other tasks: a failure is reported, never thrown.
     */
    private void releaseResultArrays(Task t) {
        final List<SharedArray> arrays = t.resultArrays;
        t.resultArrays = List.of();
        try {
            OpenedArrays.releaseAll(arrays);
        } catch (RuntimeException e) {
            config.err.println("[" + name + "] cannot release the arrays of an abandoned result: " + e);
        }
    }

    private void finishUnsent(Task t) {
        t.batch.taskDone();
        inFlight.decrementAndGet();
    }

    /**
     * A task's future is being completed by its caller (cancelled, timed out by {@code orTimeout}): if the task is
     * still queued, it leaves the queue and is done now, its arrays released. Whoever takes it off the queue owns it: a
     * dispatcher that took it first finds its future done and finishes it as unsent, or has sent it already (it runs,
     * its result dropped).
     *
     * @return whether the task was queued, and is now done
     */
    boolean dropQueued(Task t) {
        if (queue.remove(t)) {
            finishUnsent(t);
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------- faults

    /**
     * A worker process ended: settle its task, unmap its rings, start a replacement if needed. The tasks it settles
     * are completed by the next pump (the result thread, or a caller polling), not here: their callbacks may wait
     * for new tasks, which on a pool whose last worker this was need the replacement this thread starts after.
     */
    private void onWorkerExit(Worker w) {
        Task lost;
        pumpLock.lock();
        try {
            if (w.state.get() == Worker.DEAD || state.get() == CLOSED) {
                return; // settled already, or stop() settles it and may be unmapping its rings right now
            }
            // answers that made it out before the worker died still count (up to a garbled frame); a read stops at
            // the ring's end, so a second one takes what lies past its wrap
            pollWorker(w, Integer.MAX_VALUE);
            pollWorker(w, Integer.MAX_VALUE);
            removeWorker(w);
            // sends are refused before the task is taken: a dispatcher that claimed this worker and publishes its
            // task after the take finds the send refused and requeues the task, which would otherwise wait for
            // an answer from a worker nobody polls any more
            w.refuseSends();
            lost = w.inFlight.getAndSet(null);
            if (lost != null) {
                // the tasks grouped behind the one it was running never started: they run elsewhere
                final Task unstarted = lost.nextInGroup;
                lost.nextInGroup = null;
                queue.requeueUnstarted(unstarted);
                if (neverStarted(w, lost)) {
                    queue.requeueUnstarted(lost); // ahead of the group's others, as before
                    lost = null;
                }
            }
            runHook(afterExitTookTask);
        } finally {
            pumpLock.unlock();
        }
        w.unmap();
        reapEnded(w);
        releaseTimedOutPins(w);
        if (state.get() == CLOSED) {
            cancelPending();
        }
        dispatch();
        starter.exited(w);
        if (lost != null) {
            w.stderr.awaitEnd(1000);
            w.stdout.awaitEnd(1000); // a JVM prints its fatal error banner there
            lost.error = crashOf(w);
            pumpLock.lock();
            try {
                pushDone(lost); // after the answers read above: completed in arrival order
            } finally {
                pumpLock.unlock();
            }
        }
        if (state.get() == CLOSED) {
            // stop() may have settled its tasks already, and the result thread ended: settle these as stop() does,
            // one at a time, so a callback waiting for another of them finishes it itself
            settleStopped();
        } else {
            results.tasksSettled();
        }
        final int s = state.get();
        if (s == RUNNING || (s == CLOSING && inFlight.get() > 0)) {
            replace();
        }
    }

    /** @return the failure of the task a dead worker was running, with what its JVM said if it aborted */
    private static WorkerCrashedException crashOf(Worker w) {
        JvmFatalError fatal = w.stdout.fatalError();
        if (!fatal.mayBeFrom(w.pid)) {
            fatal = w.stderr.fatalError(); // -XX:+DisplayVMOutputToStderr
        }
        if (!fatal.mayBeFrom(w.pid)) {
            return new WorkerCrashedException(w.id, w.pid, w.exitCode(), w.stderr.tail(), null, null);
        }
        return new WorkerCrashedException(w.id, w.pid, w.exitCode(), w.stderr.tail(), fatal.summary(), fatal.reportFile());
    }

    /**
     * A worker process has ended: frees the arrays it created that no live process holds, and its folder. Its
     * exit hook does that on a normal exit; after a crash, a kill or a timeout nothing else would before the next
     * sharray process's first-use pass, possibly hours later.
     */
    private void reapEnded(Worker w) {
        try {
            SharedArrays.reapProcess(w.pid);
        } catch (RuntimeException | InternalError e) { // InternalError: a refcount file truncated under its mapping
            config.err.println("[" + name + "] could not free what worker " + w.id + " (pid " + w.pid + ") left: " + e);
        }
    }

    /**
     * A worker process has ended (its pid is gone): releases the arrays of the task that timed out on it. Released
     * when the task completed, a last release ran while the killed worker still looked alive and still counted its
     * references, so the files stayed until this process exited: one array per timeout.
     */
    private void releaseTimedOutPins(Worker w) {
        final Task t = w.pinnedUntilExit.getAndSet(null);
        if (t == null) {
            return;
        }
        try {
            t.batch.taskDone();
        } catch (RuntimeException e) { // its future has failed with the timeout already: say it here
            config.err.println("[" + name + "] cannot release the arrays of a task that timed out on worker " + w.id
                + ": " + e);
        }
    }

    /**
     * Whether a dead worker's task never started, so it may run elsewhere (pump lock held, rings still mapped,
     * sends refused). A task whose message the worker had not read past is requeued once only
     * ({@link Task#requeuedUnread}).
     */
    private static boolean neverStarted(Worker w, Task lost) {
        if (lost == w.afterTimedOut && !w.timedOutAnswered) {
            return true; // the task before it timed out and never answered: the worker never went on to this one
        }
        if (lost.messageStart == Task.NOT_WRITTEN) {
            return true; // its send was refused: it never reached the ring
        }
        if (w.readPastMessageOf(lost) || lost.requeuedUnread) {
            return false;
        }
        lost.requeuedUnread = true; // the worker died before reading its message (e.g. while idle)
        return true;
    }

    private void replace() {
        for (int attempt = 1; ; attempt++) {
            Worker w = null;
            try {
                w = starter.awaitHello(starter.launch(resultSinks), resultSinks);
            } catch (RuntimeException e) {
                if (state.get() == CLOSED) {
                    return; // stop() settles every queued task (CancellationException) and every worker
                }
                if (attempt >= 3) {
                    config.err.println("[" + name + "] cannot replace a dead worker: " + e.getMessage());
                    if (workers.length == 0) {
                        // terminal: with no worker left nothing would ever take a task again
                        noWorkers = new IllegalStateException("no worker could be started: " + e.getMessage(), e);
                        failPendingNoWorkers();
                    }
                    return;
                }
                continue;
            }
            pumpLock.lock();
            try {
                if (state.get() == CLOSED) {
                    w.closeStdin();
                    w.process.destroyForcibly();
                    w.awaitExit();
                    w.unmap();
                    return;
                }
                final Worker[] now = workers;
                final Worker[] next = Arrays.copyOf(now, now.length + 1);
                next[now.length] = w;
                w.state.set(Worker.IDLE);
                workers = next;
            } finally {
                pumpLock.unlock();
            }
            results.workerJoined();
            watchExit(w);
            dispatch();
            return;
        }
    }

    private void removeWorker(Worker w) {
        final Worker[] now = workers;
        final List<Worker> kept = new ArrayList<>(now.length);
        for (Worker x : now) {
            if (x != w) {
                kept.add(x);
            }
        }
        workers = kept.toArray(new Worker[0]);
    }

    /** Fails every queued task, each with an exception of its own (callers add suppressed ones to it). */
    private void failPendingNoWorkers() {
        for (Task t = queue.poll(); t != null; t = queue.poll()) {
            t.error = new IllegalStateException(noWorkers.getMessage(), noWorkers.getCause());
            finish(t);
        }
    }

    // ------------------------------------------------------------------------------------- lifecycle

    /** @return the process ids of the live workers (for monitoring and tests) */
    public List<Long> workerPids() {
        final List<Long> pids = new ArrayList<>();
        for (Worker w : workers) {
            pids.add(w.pid);
        }
        return pids;
    }

    /** @return the number of live workers */
    public int size() {
        return workers.length;
    }

    /** @return whether {@link #close()} or {@link #shutdownNow()} has been called */
    public boolean isClosed() {
        return state.get() != RUNNING;
    }

    /**
     * Stops accepting tasks, waits for every submitted task to finish, then stops the workers and
     * removes the pool's files and mappings. Idempotent.
     *
     * <p>The wait has no bound of its own: a task without a timeout that never ends (an endless loop, a read that
     * never returns) keeps {@code close()} waiting for as long. Give such tasks a timeout
     * ({@link Builder#taskTimeout}, {@link #submit(RemoteFunction, Object, Duration)}), or call
     * {@link #shutdownNow()}, from another thread too: it kills the workers and this {@code close()} returns.
     *
     * <p>A second call returns once the pool has stopped; except in a callback run on the pool's result thread, where it
     * returns at once: the first call's stop waits for that thread.
     */
    @Override
    public void close() {
        if (!state.compareAndSet(RUNNING, CLOSING)) {
            awaitStoppedUnlessResultThread();
            return;
        }
        // the caller's interrupt is put aside while it drains, and given back: kept set, it made every park below
        // return at once, a busy loop taking a core from the workers for as long as the last tasks ran
        boolean interrupted = Thread.interrupted();
        try {
            while (inFlight.get() > 0 && !shutdownNow) {
                if (tryPump() == 0) {
                    LockSupport.parkNanos(200_000);
                }
                interrupted |= Thread.interrupted();
            }
            stop(false);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Stops at once: queued tasks and running tasks fail with {@link CancellationException}, workers
     * are killed, files and mappings removed. Idempotent; a call once the pool is stopping returns as a second
     * {@link #close()} does.
     */
    public void shutdownNow() {
        shutdownNow = true;
        if (state.get() == CLOSED) {
            awaitStoppedUnlessResultThread();
            return;
        }
        state.compareAndSet(RUNNING, CLOSING);
        stop(true);
    }

    private final Object stopLock = new Object();
    private boolean stopped;

    private void stop(boolean kill) {
        synchronized (stopLock) {
            if (stopped) {
                return;
            }
            boolean done = false;
            try {
                stopOnce(kill);
                done = true;
            } finally {
                if (!done) {
                    // cut short (an Error: out of memory, a class that cannot load at the open-file limit): no worker
                    // may outlive the pool, and a later close() must not wait for a stop that never ends (it did)
                    for (Worker w : workers) {
                        w.process.destroyForcibly();
                    }
                }
                stopped = true;
                stopLock.notifyAll();
            }
        }
    }

    /** Stops the pool (stop lock held): see {@link #stop}. */
    private void stopOnce(boolean kill) {
        state.set(CLOSED);
        // no replacement may start from now on; wait for one in progress to settle
        supervisor.shutdown();
        Uninterruptibly.awaitTermination(supervisor, STOP_GRACE_MILLIS * 2);
        results.stop(STOP_GRACE_MILLIS);
        runHook(duringStop);
        final Worker[] all = workers;
        for (Worker w : all) {
            if (kill) {
                w.state.set(Worker.KILLED); // refuses sends: a task published after the drain below is requeued
                w.process.destroyForcibly();
            } else {
                w.state.set(Worker.STOPPING);
                w.sendControl(Protocol.STOP, 0);
                // also end its stdin watcher, which a JVM exit would otherwise wait ~300 ms for
                w.closeStdin();
            }
        }
        for (Worker w : all) {
            if (!kill) {
                w.awaitExit();
            }
            w.closeStdin();
            w.process.destroyForcibly();
            w.awaitExit();
            starter.exited(w);
            reapEnded(w); // killed, or stopped but held to its grace: what it created may be left
            releaseTimedOutPins(w);
        }
        pumpLock.lock();
        try {
            workers = new Worker[0];
            for (Worker w : all) {
                for (Task t = w.inFlight.getAndSet(null); t != null; ) {
                    final Task next = t.nextInGroup;
                    t.nextInGroup = null;
                    t.error = shutDown();
                    pushDone(t);
                    t = next;
                }
            }
        } finally {
            pumpLock.unlock();
        }
        for (Worker w : all) {
            w.unmap();
            w.stdout.awaitEnd(1000);
            w.stderr.awaitEnd(1000);
        }
        settleStopped();
        copies.close(); // every call has completed: its copies are back in the cache or released
    }

    /**
     * The pool has stopped: completes its answered and queued tasks, taking them one at a time from the shared
     * lists, so that a callback run here which waits for another of them (a {@code handle} stage joining a queued
     * task) finishes it itself ({@link #helpUntilDone}) instead of waiting for this loop, which waits for it.
     */
    private void settleStopped() {
        for (Task t = takeOneDone(); t != null; t = takeOneDone()) {
            finish(t);
        }
        cancelPending();
    }

    private Task takeOneDone() {
        pumpLock.lock();
        try {
            final Task t = doneHead;
            if (t != null) {
                doneHead = t.nextDone;
                t.nextDone = null;
            }
            return t;
        } finally {
            pumpLock.unlock();
        }
    }

    /**
     * Another call stops the pool: waits until it has, unless this is the result thread (a callback closing the pool),
     * which that stop waits for (up to {@link #STOP_GRACE_MILLIS}): both waited, the stop stalled for the whole grace.
     */
    private void awaitStoppedUnlessResultThread() {
        if (!results.isCurrentThread()) {
            awaitStopped();
        }
    }

    private void awaitStopped() {
        synchronized (stopLock) {
            // also while another close() still drains (CLOSING): a second close() returns only once stopped
            boolean interrupted = false;
            while (!stopped && state.get() != RUNNING) {
                try {
                    stopLock.wait(100);
                } catch (InterruptedException e) {
                    interrupted = true; // returned at once, before the pool had stopped; kept for the caller
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // --------------------------------------------------------------------------------------- helpers

    /** The pool as its result thread sees it. */
    private final class ResultSource implements ResultThread.Pool {
        @Override
        public int tryPump(boolean beforeSleep) {
            return ProcessPool.this.tryPump(beforeSleep);
        }

        @Override
        public int tasksInFlight() {
            return inFlight.get();
        }

        /**
         * A counted caller polls until it has run the callbacks of what it found; one that has not polled for
         * {@link #CALLER_POLL_STALE_NANOS} is in such a callback, which may block or join another task whose
         * answer only this thread would then read (it waited for ever).
         */
        @Override
        public boolean callerPolling() {
            return spinningWaiters.get() != 0
                && System.nanoTime() - (long) CALLER_POLLED_AT.getAcquire(ProcessPool.this) < CALLER_POLL_STALE_NANOS;
        }

        @Override
        public boolean closed() {
            return state.get() == CLOSED;
        }

        @Override
        public boolean onlyLongTasksRunning() {
            boolean any = false;
            for (Worker w : workers) {
                final Task t = w.inFlight.get();
                if (t != null) {
                    if (!t.future.expectsLongWait()) {
                        return false;
                    }
                    any = true;
                }
            }
            return any;
        }

        @Override
        public long untilNextDeadline(long nanos) {
            final long now = System.nanoTime();
            for (Worker w : workers) {
                final Task t = w.inFlight.get();
                if (t != null && t.deadline != 0) {
                    nanos = Math.max(0, Math.min(nanos, t.deadline - now));
                }
            }
            return nanos;
        }

        @Override
        public int workerCount() {
            return workers.length;
        }
    }

    /** Settings fixed at build time. */
    private static final class Config {
        int workers;
        List<String> jvmOptions;
        String heapSize;
        long maxBytes;
        long retainMappingBytes;
        long copyCacheBytes;
        Reducers reducers;
        Duration taskTimeout;
        Path tempFolder;
        int ringCapacity;
        long resultSleepNanos;
        PrintStream out;
        PrintStream err;
    }

    /**
     * The most workers a pool may have: each is a JVM of its own. One array can be held by up to 2,046 processes at
     * once, so all of them (and the parent) can hold views of one array in the same {@code mapChunks}.
     */
    public static final int MAX_WORKERS = 1024;

    /** Builds a {@link ProcessPool}. Not thread-safe. */
    public static final class Builder {
        private int workers = Runtime.getRuntime().availableProcessors();
        private final List<String> jvmOptions = new ArrayList<>();
        private String heapSize;
        private long maxBytes = 1 << 20;
        private long retainMappingBytes = 8L << 30;
        private long copyCacheBytes = 1L << 30;
        private Reducers reducers = Reducers.defaults();
        private Duration taskTimeout;
        private Path tempFolder;
        private int ringCapacity = 1 << 20;
        private long resultSleepNanos = TimeUnit.MILLISECONDS.toNanos(5);

        private Builder() {
        }

        /**
         * @param workers number of worker JVMs, 1 to {@value ProcessPool#MAX_WORKERS}
         * @return this builder
         */
        public Builder workers(int workers) {
            // every worker is a JVM started at once: a typo like 100000 would fork until the machine gives out
            if (workers < 1 || workers > MAX_WORKERS) {
                throw new IllegalArgumentException("workers must be 1 to " + MAX_WORKERS + ", was " + workers);
            }
            this.workers = workers;
            return this;
        }

        /**
         * @param options extra JVM options for the workers, after the project's flags (so they win)
         * @return this builder
         */
        public Builder jvmOptions(String... options) {
            Objects.requireNonNull(options, "options");
            for (String o : options) {
                Objects.requireNonNull(o, "a JVM option is null");
            }
            jvmOptions.addAll(Arrays.asList(options));
            return this;
        }

        /**
         * @param heapSize the workers' maximum heap in {@code -Xmx} syntax ("512m", "4g")
         * @return this builder
         */
        public Builder heapSize(String heapSize) {
            Objects.requireNonNull(heapSize, "heapSize");
            if (!heapSize.matches("\\d+[kKmMgGtT]?")) {
                throw new IllegalArgumentException("heap size must look like 512m or 4g, was " + heapSize);
            }
            this.heapSize = heapSize;
            return this;
        }

        /**
         * @param maxBytes primitive and heap arrays larger than this are copied once into shared memory
         *                 instead of being sent inline (default 1 MiB)
         * @return this builder
         */
        public Builder maxBytes(long maxBytes) {
            if (maxBytes < 0) {
                throw new IllegalArgumentException("maxBytes must be >= 0");
            }
            this.maxBytes = maxBytes;
            return this;
        }

        /**
         * How many bytes of array mappings each worker keeps after a task, without a reference, so the next
         * task on the same array neither maps it nor takes page faults again (default 8 GiB of address
         * space). A kept mapping never keeps a file alive: the file is deleted as usual when its last holder
         * releases it, and the worker returns that memory within ~50 ms when idle (or after its current
         * task). 0 unmaps at the end of every task.
         *
         * @param bytes the budget per worker, at least 0
         * @return this builder
         */
        public Builder retainMappingBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("retainMappingBytes must be >= 0");
            }
            this.retainMappingBytes = bytes;
            return this;
        }

        /**
         * How many bytes of pool-owned shared copies of heap arrays the pool keeps after their tasks (default
         * 1 GiB), so that the next call passing a heap array of the same dtype and shape copies into memory
         * that is already allocated and mapped instead of creating, faulting in and later freeing a new file
         * (for a 1 GiB {@code double[]} that is about three quarters of the cost). A copy that a task returned
         * or kept a reference to is never reused, and a call that needs a copy of another dtype or shape
         * first frees the kept ones, so they never take the space a new copy needs. Kept copies are freed by
         * {@link #close()}; 0 frees every copy when its call completes.
         *
         * @param bytes the budget, at least 0
         * @return this builder
         */
        public Builder copyCacheBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("copyCacheBytes must be >= 0");
            }
            this.copyCacheBytes = bytes;
            return this;
        }

        /**
         * @param reducers the registry for arguments, captured values and results; its user reducers
         *                 must have public no-argument constructors (workers instantiate them by name)
         * @return this builder
         */
        public Builder reducers(Reducers reducers) {
            Objects.requireNonNull(reducers, "reducers");
            for (Reducer<?> r : reducers.registered()) {
                try {
                    r.getClass().getConstructor();
                } catch (NoSuchMethodException e) {
                    throw new IllegalArgumentException("reducer " + r.getClass().getName()
                        + " needs a public no-argument constructor: workers create it by name", e);
                }
            }
            this.reducers = reducers;
            return this;
        }

        /**
         * @param timeout default longest run time of a task, positive, or {@code null} for none (the default; as is
         *                one too long for a deadline, past ~146 years)
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder taskTimeout(Duration timeout) {
            this.taskTimeout = checkedTimeout(timeout);
            return this;
        }

        /**
         * @param folder where the pool puts its files (ring files, pool-owned shared copies); by
         *               default this process's sharray temp folder
         * @return this builder
         */
        public Builder tempFolder(Path folder) {
            this.tempFolder = folder;
            return this;
        }

        /**
         * Test hook: the longest sleep of the result thread on its doorbell while a worker is not connected to it;
         * a result that does not ring is seen after this long (default 5 ms). Once every worker is connected (each
         * answer then rings), the longest sleep is this or 100 ms, whichever is longer.
         */
        Builder resultSleep(Duration sleep) {
            this.resultSleepNanos = sleep.toNanos();
            return this;
        }

        /**
         * @param bytes capacity of each ring buffer, a power of two (default 1 MiB); larger messages are fragmented
         * @return this builder
         */
        Builder ringCapacity(int bytes) {
            this.ringCapacity = bytes;
            return this;
        }

        /**
         * Starts the workers and waits until all are ready.
         *
         * @return the running pool
         * @throws IllegalStateException when a worker fails to start (with its exit code and stderr)
         */
        public ProcessPool build() {
            final Config c = new Config();
            c.workers = workers;
            c.jvmOptions = List.copyOf(jvmOptions);
            c.heapSize = heapSize;
            c.maxBytes = maxBytes;
            c.retainMappingBytes = retainMappingBytes;
            c.copyCacheBytes = copyCacheBytes;
            c.reducers = reducers;
            c.taskTimeout = taskTimeout;
            c.tempFolder = tempFolder;
            c.ringCapacity = ringCapacity;
            c.resultSleepNanos = resultSleepNanos;
            c.out = System.out;
            c.err = System.err;
            // started with the caller's interrupt put aside: a worker's ring file is mapped through a channel that an
            // interrupt closes, which failed the build with "cannot start worker 1" (ClosedByInterruptException)
            final boolean interrupted = Thread.interrupted();
            try {
                final ProcessPool pool = new ProcessPool(c);
                pool.start();
                return pool;
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
