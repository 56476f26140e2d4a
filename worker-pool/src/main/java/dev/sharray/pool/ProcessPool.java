package dev.sharray.pool;

import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import dev.sharray.reducers.CopyCache;
import dev.sharray.reducers.SharingSession;
import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

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
 * worker is killed and replaced, as is the worker of a running task whose future its caller cancelled with
 * {@code cancel(true)}. When the last worker is gone and three attempts to start a replacement
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
 * short and non-blocking, or use the {@code *Async} variants. A callback that blocks on the result thread (a sleep, a
 * lock, I/O) holds up every caller's results while it blocks, not only its own task's. One there may still call the pool and wait for the
 * futures it returns ({@code map}, {@code submit(..).join()}) and for the stages that depend on them
 * ({@code submit(..).thenApply(..).join()}): the thread reads answers while it waits. Waiting on the result
 * thread on any other future (one the pool did not make, such as {@code CompletableFuture.allOf}'s) stops the
 * pool's results until it ends; on a waiting caller's thread, it holds them up for at most about 5 ms.
 */
public final class ProcessPool implements AutoCloseable {
    private static final AtomicInteger POOL_SEQ = new AtomicInteger();
    /** The longest timeout that gets a deadline (~146 years); a longer one is none (see checkedTimeout). */
    private static final Duration LONGEST_TIMEOUT = Duration.ofNanos(Long.MAX_VALUE / 2);
    /** The most chunks of one {@code mapChunks} call: the most elements a list (of its results) can hold. */
    private static final long MAX_CHUNKS = Integer.MAX_VALUE - 8;
    /** Per function class: the task time its latest map call measured, 0 before one was measured (see TaskGrouping). */
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
    private final AtomicLong taskSeq = new AtomicLong();
    private final AtomicInteger mapSeq = new AtomicInteger();

    /** Whether a map call whose workers cache a function holding heap copies runs (one at a time, see map). */
    private final java.util.concurrent.atomic.AtomicBoolean copiesCallInFlight =
        new java.util.concurrent.atomic.AtomicBoolean();
    /** Tasks submitted and not yet completed (queued, running, or being finished). */
    private final AtomicInteger inFlight = new AtomicInteger();
    private final PoolState state = new PoolState();
    private final PoolWorkers workers = new PoolWorkers();
    private final ExecutorService supervisor;
    /** Bytes of each of a worker's two rings. */
    private static final int DEFAULT_RING_CAPACITY = 1 << 20;
    private final ResultThread results;
    private final TaskFinisher finisher;
    private final TaskDispatcher dispatcher;
    private final ResultPump pump;
    private final WaitingCallers callers;
    private final WorkerExits exits;
    private final StopSequence stopSequence;
    private final ThreadLocal<ArgumentEncoder> encoders;
    /** Shared copies of heap arguments kept for the next call (see {@link Builder#copyCacheBytes}). */
    private final CopyCache copies;
    /** Test hook: tasks per message for the next map calls, 0 in use (see {@link #tasksPerMessage}). */
    private volatile int tasksPerMessage;

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
                config.reducers.registered().stream().map(r -> r.getClass().getName()).toList(), config.tempFolder,
                config.classpath);
            starter = new WorkerStarter(folder, name, launcher, config.ringCapacity, config.out, config.err,
                state::closed, state::shutdownNowCalled);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the pool's temp folder", e);
        }
        this.encoders = ThreadLocal.withInitial(() -> new ArgumentEncoder(config.reducers));
        this.supervisor = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, name + "-supervisor");
            t.setDaemon(true);
            return t;
        });
        final TaskQueue queue = new TaskQueue();
        this.results = new ResultThread(name, supervisor, doorbellPath, config.resultSleepNanos, config.err);
        this.finisher = new TaskFinisher(inFlight, config.err, name);
        this.dispatcher = new TaskDispatcher(queue, workers, finisher, results, state, inFlight);
        this.pump = new ResultPump(workers, queue, dispatcher, finisher, results, new ResultDecoder(config.reducers), state,
            config.err, name);
        this.callers = new WaitingCallers(pump, results, state, inFlight);
        this.exits = new WorkerExits(workers, queue, dispatcher, pump, results, starter, supervisor, state, inFlight,
            config.err, name);
        this.stopSequence = new StopSequence(state, workers, pump, results, exits, starter, supervisor, copies);
    }

    /**
     * @return the bytes each worker takes in the pool's temp folder while it runs (its ring file, mapped, and while it
     *     starts its argument file), for sizing a small folder: arrays need room beside them
     */
    public static long tempBytesPerWorker() {
        return RingFile.fileSize(DEFAULT_RING_CAPACITY) + 4096;
    }

    /**
     * Starts a pool of {@code workers} worker JVMs with default settings and waits until all are ready.
     *
     * @param workers number of worker JVMs, 1 to {@value #MAX_WORKERS}
     * @return the running pool
     * @throws IllegalArgumentException when {@code workers} is out of that range
     * @throws IllegalStateException when a worker fails to start (with its exit code and stderr)
     */
    public static ProcessPool create(int workers) {
        return builder().workers(workers).build();
    }

    /** @return a builder with default settings (one worker per available processor) */
    public static Builder builder() {
        return new Builder();
    }

    private void start() {
        stopSequence.endFrozenWorkersAtExitFromNow();
        final List<Worker> started = new ArrayList<>();
        final List<Worker> launched = new ArrayList<>();
        int awaited = 0; // awaitHello cleans up a worker it gives up on; later ones are ours to clean
        try {
            for (int i = 0; i < config.workers; i++) {
                launched.add(starter.launch(pump.sinks()));
            }
            for (Worker w : launched) {
                awaited++;
                started.add(starter.awaitHello(w, pump.sinks()));
            }
        } catch (RuntimeException | Error e) {
            for (int i = awaited; i < launched.size(); i++) {
                starter.abandon(launched.get(i));
            }
            workers.replaceAll(started.toArray(new Worker[0]));
            shutdownNow();
            throw e;
        }
        workers.replaceAll(started.toArray(new Worker[0]));
        for (Worker w : started) {
            w.state.set(Worker.IDLE);
            exits.watch(w);
        }
        results.start(new ResultSource(pump, callers, workers, state, inFlight));
    }

    // ------------------------------------------------------------------------------------ submitting

    /**
     * Runs {@code fn(arg)} in a worker, with the pool's default timeout. The caller writes the task into the
     * worker's ring: a message larger than the ring (1 MiB; arguments above {@code maxBytes} cross shared, not in
     * it) waits for that worker to read, so a worker that does not (frozen by SIGSTOP, in a long GC pause) holds
     * this call until it reads, the task's timeout kills it, or the pool stops.
     *
     * @param fn  the function
     * @param arg its argument; arrays in it are pinned until the task is done, so the caller may
     *            release them right after this returns
     * @param <T> argument type
     * @param <R> result type
     * @return the result's future; it fails with {@link RemoteTaskException} (the function threw),
     *         {@link WorkerCrashedException} (its worker died running it), {@link TaskTimeoutException} (it ran past
     *         its timeout), {@link CancellationException} ({@link #shutdownNow()} stopped the pool first),
     *         {@link IllegalStateException} (every worker died and none could be started) or
     *         {@link dev.sharray.reducers.MalformedDataException} (its result could not be decoded; this JVM's own
     *         lack of heap or file descriptors to take it in is an {@link OutOfMemoryError} or
     *         {@link java.io.UncheckedIOException}). Cancelling it, or completing it yourself ({@code orTimeout}...),
     *         keeps a queued task from running and releases its arrays at once. A running one is stopped by
     *         {@code cancel(true)}: its worker is killed, as at a timeout, and replaced (a worker start, a few tenths
     *         of a second); {@code cancel(false)} or completing it lets it run to its end in its worker, which stays
     *         busy meanwhile (its result is dropped)
     * @throws IllegalStateException when the pool is closed
     * @throws dev.sharray.reducers.ReducerException when {@code fn} or {@code arg} holds a value no reducer handles,
     *         or {@code arg} is a collection that arrives as a class {@code fn}'s parameter cannot hold (a
     *         {@code TreeMap} is rebuilt as a {@code LinkedHashMap}: declare the parameter as {@code Map})
     * @throws NullPointerException when {@code fn} is null
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
     *                long for a deadline, past ~146 years); an answer still arriving at the deadline (one larger
     *                than the ring, read late) is not timed out while its records keep coming
     * @param <T>     argument type
     * @param <R>     result type
     * @return the result's future; it fails as {@link #submit(RemoteFunction, Object)}'s does
     * @throws IllegalStateException when the pool is closed
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     * @throws dev.sharray.reducers.ReducerException as for {@link #submit(RemoteFunction, Object)}
     * @throws NullPointerException when {@code fn} is null
     */
    @SuppressWarnings("unchecked")
    public <T, R> CompletableFuture<R> submit(RemoteFunction<T, R> fn, T arg, Duration timeout) {
        Objects.requireNonNull(fn, "fn");
        timeout = checkedTimeout(timeout);
        requireRunning();
        final SharingSession sharing = newSharing();
        final Task task;
        try {
            FunctionCodec.checkArgumentArrives(fn, arg, config.reducers);
            final FunctionCodec.Encoded encoded = FunctionCodec.encode(fn, config.reducers, sharing);
            task = newTask(encoded, arg, timeout, new Task.Batch(1, sharing::close), sharing, -1);
        } catch (RuntimeException | Error e) { // e.g. a user reducer's AssertionError: its copies must not leak
            sharing.close();
            throw e;
        }
        dispatcher.enqueue(task, true);
        return (CompletableFuture<R>) task.future;
    }

    /**
     * Runs {@code fn} on every argument in parallel and returns the results in argument order. The
     * function is encoded once, and an array appearing in several arguments is shared once. A worker decodes
     * a function with state (captured values, fields, heap arrays of any size) once per call, not once per task,
     * unless it captured a {@link dev.sharray.SharedArray} (opened and released with each task); the tasks of one call
     * that run on one worker thus share one copy of the function's values, as calls in one JVM would. A function that
     * captured heap arrays above {@code maxBytes} is decoded so only when they are at most an eighth of a worker's heap
     * and no other call's function of that kind is: a worker keeps the arrays of a function it decoded once until its
     * call ends, beside what tasks of other calls need.
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
     *         every task has finished (later failures are suppressed into it: up to 16, none alike one already
     *         there, the others counted in a last suppressed exception)
     * @throws WorkerCrashedException when a worker died running a task (the first failure in argument order,
     *         as above)
     * @throws TaskTimeoutException when a task ran past its timeout (the first failure in argument order, as
     *         above)
     * @throws CancellationException when {@link #shutdownNow()} stopped the pool before a task finished (the first
     *         failure in argument order, as above)
     * @throws dev.sharray.reducers.MalformedDataException when a task's result could not be read (the first failure
     *         in argument order, as above)
     * @throws IllegalStateException when the pool is closed (no task runs), or every worker died and none could be
     *         started
     * @throws dev.sharray.reducers.ReducerException when {@code fn} or an argument holds a value no reducer handles,
     *         as for {@link #submit(RemoteFunction, Object)} (no task runs)
     * @throws NullPointerException when {@code fn} or {@code args} is null
     */
    public <T, R> List<R> map(RemoteFunction<T, R> fn, List<? extends T> args) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(args, "args");
        requireRunning(); // a call without tasks too: nothing else tells the caller the pool is closed
        if (args.isEmpty()) {
            return new ArrayList<>();
        }
        final SharingSession sharing = newSharing();
        final List<Task> tasks = new ArrayList<>(args.size());
        final TaskGrouping grouping;
        boolean holdsCopiesCall = false;
        try {
            for (T arg : args) {
                FunctionCodec.checkArgumentArrives(fn, arg, config.reducers);
            }
            FunctionCodec.Encoded encoded = FunctionCodec.encode(fn, config.reducers, sharing);
            Runnable release = sharing::close;
            // a function with state (captured values, fields) is Java-deserialized by each worker once per call,
            // not once per task. Not one that captured shared arrays: those are opened and released with each task,
            // as the lifecycle promises, where a cached function would hold them past the call's end. One that
            // captured large heap arrays is: a worker rebuilds them on its heap, releasing the pool's copy at once,
            // and a copy per task cost 0.14-0.29 s for 200 MB (new-user review 50). But a worker keeps a cached
            // function's copies until its call ends: one such call at a time (overlapping calls would each keep theirs),
            // and only copies small beside a worker's heap (a task of another call may need the rest of it)
            final boolean withCopies = sharing.size() > 0;
            final boolean cacheable = encoded.id == 0 && args.size() > 1 && !sharing.pinsSharedArrays()
                && (!withCopies || sharing.copiedBytes() <= workers.smallestMaxHeap() / 8);
            if (cacheable && (!withCopies || copiesCallInFlight.compareAndSet(false, true))) {
                holdsCopiesCall = withCopies;
                final int mapId = nextMapId();
                encoded = encoded.forMap(mapId);
                release = () -> {
                    try {
                        sharing.close();
                    } finally {
                        workers.forgetMapFunction(mapId);
                        if (withCopies) {
                            copiesCallInFlight.set(false);
                        }
                    }
                };
            }
            // tasks of a call whose function the workers cache may share messages (see TaskGrouping)
            grouping = encoded.id != 0 || encoded.mapId != 0
                ? new TaskGrouping(TASK_NANOS.get(fn.getClass()).get(), tasksPerMessage) : null;
            final Task.Batch batch = new Task.Batch(args.size(), release, grouping);
            for (T arg : args) {
                tasks.add(newTask(encoded, arg, config.taskTimeout, batch, sharing, tasks.size()));
            }
        } catch (RuntimeException | Error e) { // e.g. a user reducer's AssertionError: its copies must not leak
            sharing.close();
            if (holdsCopiesCall) { // no task was sent: the batch that would release it never ends
                copiesCallInFlight.set(false);
            }
            throw e;
        }
        for (int i = 0; i < tasks.size(); i++) {
            try {
                // all queued before any is sent, so idle workers get groups rather than one task each
                dispatcher.enqueue(tasks.get(i), i == tasks.size() - 1);
            } catch (RuntimeException e) {
                // enqueue counted the refused task done; the rest never run: count them too, so the batch
                // releases its pinned arrays and shared copies
                for (int j = i + 1; j < tasks.size(); j++) {
                    tasks.get(j).batch.taskDone();
                }
                dispatcher.dispatch(); // the ones queued before it still run: close() drains them
                throw e;
            }
        }
        try {
            return collect(tasks);
        } finally {
            if (grouping != null && grouping.taskNanos() != 0) {
                TASK_NANOS.get(fn.getClass()).set(grouping.taskNanos());
            }
        }
    }

    /**
     * Refuses a call on a closed pool before its function and arguments are encoded: that copied a large heap argument
     * into shared memory first (a 256 MiB {@code double[]}: ~0.5-1.5 s and its room in the temp folder), and an
     * argument no reducer handles was refused as such, not as a call on a closed pool. The queue checks again, for a
     * close that comes meanwhile.
     */
    private void requireRunning() {
        if (!state.running()) {
            throw TaskDispatcher.closedPool();
        }
    }

    /** Waits for every task of a map call; returns the results in order or throws the first failure. */
    @SuppressWarnings("unchecked")
    private <R> List<R> collect(List<Task> tasks) {
        awaitLast(tasks);
        final List<R> results = new ArrayList<>(tasks.size());
        CallFailures failures = null;
        for (Task t : tasks) {
            try {
                results.add((R) t.future.join());
            } catch (CompletionException | CancellationException e) {
                final Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                if (failures == null) {
                    failures = new CallFailures();
                }
                failures.add(cause instanceof RuntimeException ? (RuntimeException) cause : new CompletionException(cause));
                results.add(null);
            }
        }
        if (failures != null) {
            // the call fails as a whole: the arrays in the results that did arrive are nobody's
            for (Task t : tasks) {
                try {
                    finisher.releaseResultArrays(t);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
            throw withCallerFrames(failures.first());
        }
        return results;
    }

    /** The frame between a failure's own frames (a worker's, or the pool's threads') and its caller's. */
    private static final StackTraceElement RETHROWN = new StackTraceElement(ProcessPool.class.getName(),
        "rethrownToTheCaller", null, -1);

    /**
     * Adds the calling thread's frames below the failure's own, as RMI does for a remote exception: its stack
     * trace ended in the worker's loop (or the pool's result thread), so a log of a failed {@code map} named
     * neither the call nor its caller. A {@code submit}'s future wraps its failure instead, as
     * {@code CompletableFuture} does.
     */
    private static RuntimeException withCallerFrames(RuntimeException failure) {
        final StackTraceElement[] own = failure.getStackTrace();
        for (StackTraceElement e : own) {
            if (e.equals(RETHROWN)) {
                return failure; // rethrown already (one failure shared by the tasks of one call)
            }
        }
        final StackTraceElement[] caller = new Throwable().getStackTrace();
        final StackTraceElement[] both = java.util.Arrays.copyOf(own, own.length + 1 + caller.length);
        both[own.length] = RETHROWN;
        System.arraycopy(caller, 0, both, own.length + 1, caller.length);
        failure.setStackTrace(both);
        return failure;
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

    /** Test hook: how many workers have raised their sleeping flag (see {@link RingFile}). */
    int sleepingWorkers() {
        return workers.sleeping();
    }

    /**
     * Test hook: holds the pump lock on this thread while {@code during} runs, then lets go of it as a pump
     * does, with nothing read.
     */
    void holdPumpLockWhile(Runnable during) {
        pump.holdLockWhile(during);
    }

    /**
     * Test hook: {@code hook} runs in the next dispatches between claiming a worker and publishing its task
     * (null: none).
     */
    void beforeTaskPublished(Runnable hook) {
        dispatcher.beforeTaskPublished(hook);
    }

    /** Test hook: {@code hook} runs in the exit handling of workers, under the pump lock, once it has taken the task. */
    void afterExitTookTask(Runnable hook) {
        exits.afterExitTookTask(hook);
    }

    /** Test hook: {@code hook} runs when a task has timed out, under the pump lock, before its worker is killed. */
    void beforeTimeoutKill(Runnable hook) {
        pump.beforeTimeoutKill(hook);
    }

    /** Test hook: {@code hook} runs in the stop, before the workers are stopped (null: none). */
    void duringStop(Runnable hook) {
        stopSequence.duringStop(hook);
    }

    /** Test hook: whether a dispatcher left a queue-behind for the pump lock's holder. */
    boolean queueBehindMissed() {
        return dispatcher.queueBehindMissed();
    }

    /** @return how many tasks were sent to a worker behind the one it was running, since the pool started (for tests) */
    long tasksQueuedBehind() {
        return dispatcher.tasksQueuedBehind();
    }

    /** @return the id of the worker that last ran argument position {@code position} of a placed map call, 0 if none (for tests) */
    int workerForPosition(int position) {
        return dispatcher.workerForPosition(position);
    }

    /** @return how many tasks are submitted and not yet completed: queued, running or being finished (for tests) */
    int tasksInFlight() {
        return inFlight.get();
    }

    /** @return how many groups of tasks were sent to a worker behind the group it was running (for tests) */
    long groupsQueuedBehind() {
        return dispatcher.groupsQueuedBehind();
    }

    /** @return how many times the result thread slept while groups ran with groups queued behind them (for tests) */
    long resultThreadGroupSleeps() {
        return results.groupSleeps();
    }

    /** @return how many messages carried more than one task, since the pool started (for tests) */
    long groupsSent() {
        return dispatcher.groupsSent();
    }

    /** @return messages of tasks sent to workers (of one task or several) since the pool started (for probes) */
    long messagesSent() {
        return dispatcher.messagesSent();
    }

    /** @return how many stops waited their whole grace for the result thread to end (for tests) */
    int resultThreadGracesWaitedOut() {
        return results.gracesWaitedOut();
    }

    /** @return how many tasks were sent to a worker but never started there and were queued again (for tests) */
    long tasksRequeued() {
        return dispatcher.tasksRequeued();
    }

    /**
     * Test hook: the tasks of the next map calls whose function the workers cache travel {@code n} per message
     * (2 to {@link TaskGrouping#MAX_TASKS}) from the first, whatever their measured time, which on a busy machine
     * can keep tiny tasks one per message for a whole call; 0 restores the measured sizes.
     */
    void tasksPerMessage(int n) {
        tasksPerMessage = TaskGrouping.checkedFixedSize(n);
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
        dispatcher.enqueue(t, true);
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
     * @param array        the array (any view with at least one dimension; the rows of a one-dimensional array are
     *                     its elements)
     * @param rowsPerChunk rows per chunk, at least 1; the last chunk may be shorter
     * @param fn           the function run on each chunk
     * @param <R>          result type
     * @return one result per chunk, in row order
     * @throws IllegalArgumentException when {@code rowsPerChunk} is below 1, {@code array} has no dimension, or the
     *         call would make more than {@code Integer.MAX_VALUE - 8} chunks (more results than a list holds)
     * @throws RemoteTaskException when {@code fn} threw on a chunk; this and the other failures of a task are
     *         thrown as by {@link #map}: the first in row order, once every chunk has finished
     * @throws WorkerCrashedException when a worker died running a chunk
     * @throws TaskTimeoutException when a chunk's task ran past the pool's timeout
     * @throws CancellationException when {@link #shutdownNow()} stopped the pool before a chunk finished
     * @throws IllegalStateException when the pool is closed, or every worker died and none could be started, or
     *         {@code array} has been released
     * @throws NullPointerException when {@code array} or {@code fn} is null
     */
    public <R> List<R> mapChunks(SharedArray array, long rowsPerChunk, RemoteFunction<SharedArray, R> fn) {
        Objects.requireNonNull(array, "array");
        Objects.requireNonNull(fn, "fn");
        requireRunning(); // before its views are made, as map refuses before it encodes
        if (rowsPerChunk < 1) {
            throw new IllegalArgumentException("rowsPerChunk must be at least 1, was " + rowsPerChunk);
        }
        if (array.ndim() < 1) {
            throw new IllegalArgumentException("mapChunks needs an array with at least one dimension");
        }
        // a released handle throws here as everywhere; an array without rows has no chunk that would find it out
        array.retain().release();
        final long rows = array.shape()[0];
        final long count = rows / rowsPerChunk + (rows % rowsPerChunk == 0 ? 0 : 1);
        if (count > MAX_CHUNKS) {
            throw new IllegalArgumentException("mapChunks would make " + count + " chunks of " + rowsPerChunk
                + " rows from " + rows + " rows; a call makes at most " + MAX_CHUNKS + " (one result each): pass"
                + " more rows per chunk");
        }
        // sized at once: a list this heap cannot hold fails here, before any view holds a reference
        final List<SharedArray> chunks = new ArrayList<>((int) count);
        try {
            // by what is left, never start + rowsPerChunk: that wraps past Long.MAX_VALUE (an empty array may have
            // 2^62 rows and more)
            for (long start = 0, n; start < rows; start += n) {
                n = Math.min(rowsPerChunk, rows - start);
                chunks.add(array.slice(0, start, start + n, 1));
            }
            return map(fn, chunks);
        } finally {
            releaseChunks(chunks);
        }
    }

    /**
     * Releases the views of a {@code mapChunks} call, last first, each dropped from the list before its release:
     * after the views ran this JVM out of heap, what a release needs is found among those already dropped, where one
     * failure left every later view's reference on the array until the JVM's exit.
     */
    private static void releaseChunks(List<SharedArray> chunks) {
        Throwable first = null;
        for (int i = chunks.size() - 1; i >= 0; i--) {
            try {
                chunks.remove(i).release();
            } catch (RuntimeException | Error e) {
                first = first == null ? e : first;
            }
        }
        if (first instanceof Error) {
            throw (Error) first;
        }
        if (first != null) {
            throw (RuntimeException) first;
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

    /**
     * Called by a waiting thread: polls results itself for a short while before the caller blocks; not for a
     * task of a call whose tasks are measured long (the polling would only take a core from the workers).
     */
    void helpUntilDone(TaskFuture<?> f) {
        callers.helpUntilDone(f, Long.MAX_VALUE);
    }

    /**
     * As {@link #helpUntilDone(TaskFuture)}; on the result thread (a callback attached to a task's future waits
     * for another task: a follow-up map, a retry), polls until the task is done or {@code timeoutNanos} have
     * passed. That thread reads the answers: were it to block, nothing would complete the task it waits for.
     */
    void helpUntilDone(TaskFuture<?> f, long timeoutNanos) {
        callers.helpUntilDone(f, timeoutNanos);
    }

    /**
     * A task's future is being completed by its caller: if the task is still queued, it leaves the queue and is done
     * now, its arrays released (see {@link TaskDispatcher#dropQueued}).
     *
     * @return whether the task was queued, and is now done
     */
    boolean dropQueued(Task t) {
        return dispatcher.dropQueued(t);
    }

    /**
     * Its caller cancelled a task that was not queued any more with {@code cancel(true)}: if it has not finished, the
     * next pump kills the worker running it (once it runs, if it is being sent), which is replaced.
     */
    void stopRunning(Task t) {
        t.stopWanted = true; // before the wake: the woken pump must see it
        results.stopRequested();
    }

    // ------------------------------------------------------------------------------------- lifecycle

    /** @return the process ids of the live workers (for monitoring and tests) */
    public List<Long> workerPids() {
        return workers.pids();
    }

    /** @return the number of live workers */
    public int size() {
        return workers.count();
    }

    /** @return whether {@link #close()} or {@link #shutdownNow()} has been called */
    public boolean isClosed() {
        return !state.running();
    }

    /**
     * Stops accepting tasks, waits for every submitted task to finish, then stops the workers and
     * removes the pool's files and mappings. Idempotent.
     *
     * <p>The wait has no bound of its own: a task without a timeout that never ends (an endless loop, a read that
     * never returns) keeps {@code close()} waiting for as long. Give such tasks a timeout
     * ({@link Builder#taskTimeout}, {@link #submit(RemoteFunction, Object, Duration)}), cancel its future with
     * {@code cancel(true)}, or call {@link #shutdownNow()}, from another thread too: it kills the workers and this
     * {@code close()} returns.
     *
     * <p>A second call returns once the pool has stopped; except in a callback that the first call's stop waits for,
     * where it returns at once: one run on the pool's result thread, or on the thread in the first {@code close()} or
     * {@code shutdownNow()} (which completes tasks, and so runs their callbacks, while it drains and stops).
     */
    @Override
    public void close() {
        if (!state.beginClosing()) {
            stopSequence.awaitStoppedUnlessStoppingHere();
            return;
        }
        stopSequence.closeOnThisThread(this::drainAndStop);
    }

    private void drainAndStop() {
        // the caller's interrupt is put aside while it drains, and given back: kept set, it made every park below
        // return at once, a busy loop taking a core from the workers for as long as the last tasks ran
        boolean interrupted = Thread.interrupted();
        try {
            while (inFlight.get() > 0 && !state.shutdownNowCalled()) {
                if (pump.tryPump() == 0) {
                    LockSupport.parkNanos(200_000);
                }
                interrupted |= Thread.interrupted();
            }
            stopSequence.stop(false);
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
        state.markShutdownNow();
        if (state.closed()) {
            stopSequence.awaitStoppedUnlessStoppingHere();
            return;
        }
        state.beginClosing();
        stopSequence.closeOnThisThread(() -> stopSequence.stop(true));
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
        String classpath;
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
        private String classpath;
        private int ringCapacity = DEFAULT_RING_CAPACITY;
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
         * Workers run without {@code jdk.incubator.vector} (naming a module on a JVM's command line costs each worker
         * ~50 ms of start-up): a pool whose tasks run the codec's Java backend at Vector API speed passes
         * {@code "--add-modules=jdk.incubator.vector"} here. Any module option here costs that start-up again.
         *
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
         * first frees the kept ones, so they never take the space a new copy needs; so does any array this
         * process creates that would otherwise lack room their release can make ({@code
         * SharedArrays.registerArrayCache}). Kept copies
         * are freed by {@link #close()}; 0 frees every copy when its call completes.
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
         * @param folder where the pool puts its files (ring files, pool-owned shared copies), and where its workers
         *               create arrays (large results they share, arrays tasks make); by default this process's
         *               sharray temp folder (workers get this JVM's {@code sharray.tempFolder} and
         *               {@code java.io.tmpdir})
         * @return this builder
         */
        public Builder tempFolder(Path folder) {
            this.tempFolder = folder;
            return this;
        }

        /**
         * @param classpath the workers' classpath, entries separated by {@code :}; by default this JVM's
         *                  {@code java.class.path} plus the jars and folders of the class loaders that loaded sharray
         *                  and the building thread's context class loader (so a program run by {@code mvn exec:java},
         *                  whose classes such a loader holds, works too). Needed only where sharray or the tasks'
         *                  classes come from elsewhere (a nested jar of a Spring Boot executable jar, say). An entry
         *                  {@code dir/*} stands for the jars of {@code dir} (not of its subfolders), as for
         *                  {@code java -cp}; they are listed when the pool starts
         * @return this builder
         * @throws IllegalArgumentException when it is blank
         */
        public Builder classpath(String classpath) {
            if (classpath == null || classpath.isBlank()) {
                throw new IllegalArgumentException("classpath must name at least one jar or folder");
            }
            this.classpath = classpath;
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
            c.classpath = classpath;
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
