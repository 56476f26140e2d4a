package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.ReducerException;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import java.nio.ByteOrder;
import java.util.concurrent.locks.LockSupport;

/**
 * The worker's single thread: reads one task (or one group of a map call's tasks) at a time from the
 * parent's ring, runs it, writes the result (one per task). A single task is decoded in place in the ring's
 * memory, a group is copied out first; tasks run after the read returns.
 */
final class WorkerLoop {
    /** Idle this long, the worker sleeps until the parent rings its doorbell instead of polling. */
    private static final long SLEEP_AFTER_NANOS = 2_000_000;
    /** The longest sleep without a doorbell: also how often a sleeping worker trims retained mappings. */
    static final long SLEEP_NANOS = Long.getLong("sharray.pool.idleSleepMillis", 50) * 1_000_000;

    private final RingFile rings;
    private final Frames.Reader reader;
    private final Frames.Writer writer;
    private final Reducers reducers;
    private final ValueReader valueReader;
    private final ValueWriter valueWriter;
    private ExpandableArrayBuffer out = new ExpandableArrayBuffer(4096);
    /** Stateless functions by id: the decoded function, or the failure to decode it (the parent sends it once). */
    private final Int2ObjectHashMap<Object> functions = new Int2ObjectHashMap<>();
    /** Functions of map calls in flight (or why they failed to decode), by map id; mirrored by the parent. */
    private final FunctionCache<Object> mapFunctions = new FunctionCache<>();
    private final Frames.Sink sink = new Frames.Sink() {
        @Override
        public void onMessage(DirectBuffer buffer, int offset, int length) {
            WorkerLoop.this.onMessage(buffer, offset, length);
        }

        @Override
        public void onUnassembled(DirectBuffer head, int offset, int length, long messageLength, OutOfMemoryError error) {
            onTaskTooLarge(head, offset, length, messageLength, error);
        }
    };
    private final TaskArrays arrays;
    private final DoorbellRinger parentDoorbell;
    /** While a result waits for room in the ring: a sleeping parent would never make any. */
    private final java.util.function.BooleanSupplier keepWriting = () -> {
        wakeParentIfSleeping();
        return true;
    };

    private boolean stopped;
    /**
     * Whether the answer of the task running now rings a sleeping parent: a lone task's and a group's last do, and
     * in a group with deadlines every task's, for the parent's read of an answer starts the next task's deadline.
     * The other answers of a group need no parent before its last: leaving them unrung spares a fence per answer.
     */
    private boolean answerWakesParent = true;
    private boolean taskReady;
    /** A TASKS message copied out of the ring, to run after the read returns. */
    private ExpandableArrayBuffer group = new ExpandableArrayBuffer(4096);
    private int groupLength;
    private boolean groupReady;
    private long taskId;
    private RemoteFunction<Object, Object> fn;
    private Object arg;
    private Throwable decodeError;

    /** Whether a worker warms its first-task paths on a helper thread at start (default true). */
    static final boolean PREWARM = Boolean.parseBoolean(System.getProperty("sharray.pool.prewarm", "true"));
    /** Classes of the shared-array open path whose static set-up is slow (process identity, logger). */
    private static final String[] ARRAY_CLASSES = {"dev.sharray.TempFolders", "dev.sharray.ProcessIdentity",
        "dev.sharray.Segments", "dev.sharray.RefCountFile", "dev.sharray.SharedArray", "dev.sharray.Descriptor",
        "dev.sharray.NpyHeader"};
    /**
     * Classes of the path that unmaps an array (the C library binding): loaded at exit by the worker that trains the
     * class-data archive, so that workers find them there when a task first unmaps, though none unmaps at exit.
     */
    private static final String[] UNMAP_CLASSES = {"dev.sharray.Posix", "dev.sharray.ReleasedRanges$EmptyFile"};
    /** A Java serialization stream holding the string "x". */
    private static final byte[] WARM_STREAM = {(byte) 0xAC, (byte) 0xED, 0, 5, 0x74, 0, 1, 'x'};

    WorkerLoop(RingFile rings, DoorbellRinger parentDoorbell, Reducers reducers, long maxBytes, long retainBytes) {
        this.rings = rings;
        this.parentDoorbell = parentDoorbell;
        this.arrays = new TaskArrays(maxBytes, retainBytes);
        this.reader = new Frames.Reader(rings.toWorker());
        this.writer = new Frames.Writer(rings.toParent());
        this.reducers = reducers;
        this.valueReader = new ValueReader(reducers);
        this.valueWriter = new ValueWriter(reducers);
    }

    void run() {
        out.putByte(0, Protocol.HELLO);
        out.putLong(1, ProcessHandle.current().pid(), ByteOrder.LITTLE_ENDIAN);
        out.putLong(9, Runtime.getRuntime().maxMemory(), ByteOrder.LITTLE_ENDIAN);
        writer.write(out, 0, Protocol.HELLO_LENGTH, () -> true);
        final Idler idler = Idler.forPolling();
        while (!stopped) {
            final int n = reader.poll(sink, 1);
            if (taskReady) {
                taskReady = false;
                runTask();
                idler.reset();
            } else if (groupReady) {
                groupReady = false;
                runGroup();
                idler.reset();
            } else {
                if (n == 0) {
                    arrays.trimWhenIdle();
                    if (idler.idleNanos() > SLEEP_AFTER_NANOS) {
                        sleepUntilRung();
                        continue;
                    }
                }
                idler.idle(n);
            }
        }
        arrays.releaseAll();
        // retained mappings are left to the exit that follows: unmapping them would first load the C library
        // binding (released ranges are mapped over, see ReleasedRanges), ~60-130 ms of CPU in every worker at close
        if (ClassDataArchive.TRAINING) {
            loadClasses(UNMAP_CLASSES);
        }
    }

    /**
     * Idle for a while: sleeps until the parent rings the doorbell after writing to the ring (see
     * {@link RingFile}; {@link ParentWatch} turns the doorbell into an unpark), or for at most
     * {@link #SLEEP_NANOS}. An idle worker thus costs no CPU, where polling with parks woke it ~1000 times a second.
     */
    private void sleepUntilRung() {
        rings.markSleeping();
        if (reader.isEmpty()) {
            LockSupport.parkNanos(this, SLEEP_NANOS);
            Thread.interrupted(); // an interrupt from a task's leftover thread must not make every later park return at once
        }
        rings.clearSleeping();
    }

    /** A message went into the result ring: rings the parent's doorbell if its result thread sleeps (see {@link RingFile}). */
    private void wakeParentIfSleeping() {
        if (rings.takeParentSleeping()) {
            parentDoorbell.ring();
        }
    }

    /**
     * Runs on a helper thread from the worker's first instruction, beside the JVM's and the ring's set-up
     * and the wait for the first task: what every first task pays anyway (setting up Java deserialization for the function; the static set-up of the array
     * classes: process identity, logger) is done here instead of on the task's clock.
     * Chronicle is not touched (it loads only for arrays above 2 GiB). Failures are ignored: the task path
     * does the same work and reports its own errors.
     */
    static void prewarm() {
        // the decoding side of Java serialization (stream, filter configuration); not the encoding side, whose
        // first use computes class fingerprints with SHA-1 and loads the security providers, work a worker
        // never needs
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(WARM_STREAM))) {
            in.setObjectInputFilter(new FunctionCodec.Filter(WARM_STREAM.length));
            in.readObject();
        } catch (java.io.IOException | ClassNotFoundException | RuntimeException | LinkageError ignored) {
            // the first task decodes its own function
        }
        loadClasses(ARRAY_CLASSES);
    }

    /** Loads and initialises {@code names}, ignoring failures: the first task that needs one reports them. */
    private static void loadClasses(String[] names) {
        final ClassLoader loader = WorkerLoop.class.getClassLoader();
        for (String name : names) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException | RuntimeException | LinkageError ignored) {
                // not on the classpath or failing set-up
            }
        }
    }

    private void onMessage(DirectBuffer buffer, int offset, int length) {
        final byte kind = buffer.getByte(offset);
        switch (kind) {
            case Protocol.TASK:
                onTask(buffer, offset, length);
                break;
            case Protocol.TASKS:
            case Protocol.TIMED_TASKS:
                onTaskGroup(buffer, offset, length);
                break;
            case Protocol.RELEASE:
                if (length != 9) {
                    System.err.println("sharray worker: protocol error: release message of " + length + " bytes");
                    System.exit(70);
                }
                arrays.releaseResult(buffer.getLong(offset + 1, ByteOrder.LITTLE_ENDIAN));
                break;
            case Protocol.FORGET:
                if (length != 9) {
                    System.err.println("sharray worker: protocol error: forget message of " + length + " bytes");
                    System.exit(70);
                }
                mapFunctions.remove((int) buffer.getLong(offset + 1, ByteOrder.LITTLE_ENDIAN));
                break;
            case Protocol.STOP:
                stopped = true;
                break;
            default:
                // the parent never sends this: the transport is corrupt, and nothing read from it can be trusted
                System.err.println("sharray worker: protocol error: unknown message kind " + kind);
                System.exit(70);
        }
    }

    private void onTask(DirectBuffer buffer, int offset, int length) {
        taskReady = true;
        fn = null;
        arg = null;
        decodeError = null;
        if (length < Protocol.TASK_HEADER + 5) {
            System.err.println("sharray worker: protocol error: task message of " + length + " bytes");
            System.exit(70);
        }
        taskId = buffer.getLong(offset + 1, ByteOrder.LITTLE_ENDIAN);
        try {
            arrays.beginTask();
            valueReader.wrap(buffer, offset + Protocol.TASK_HEADER, length - Protocol.TASK_HEADER, arrays.opening());
            fn = readFunction(buffer, offset + length);
            arg = readArgument();
        } catch (Throwable t) {
            decodeError = t;
        }
    }

    /**
     * A task whose message this worker's heap could not hold while reassembling it (its argument inline, not shared):
     * the reader dropped the message, and the task fails with the reason. The failure's cause is the
     * {@link OutOfMemoryError}, so the worker then retires as after any task that exhausted its heap
     * ({@link #exhaustedHeap}). A group's task ids lie past the first bytes kept, so a group still ends the worker.
     */
    private void onTaskTooLarge(DirectBuffer head, int offset, int length, long messageLength, OutOfMemoryError error) {
        final long heapMiB = Runtime.getRuntime().maxMemory() >> 20;
        if (length < Protocol.TASK_HEADER || head.getByte(offset) != Protocol.TASK) {
            System.err.println("sharray worker: a message of " + messageLength + " bytes does not fit in this worker's heap ("
                + heapMiB + " MiB)");
            throw error;
        }
        taskReady = true;
        fn = null;
        arg = null;
        taskId = head.getLong(offset + 1, ByteOrder.LITTLE_ENDIAN);
        arrays.beginTask();
        decodeError = new MalformedDataException("cannot read the task: its message of " + messageLength
            + " bytes does not fit in the worker's heap (" + heapMiB + " MiB); give the pool's workers a larger heapSize,"
            + " or pass the data as SharedArrays (or heap arrays above maxBytes, which are shared), not inline", error);
    }

    /**
     * A group of tasks of one map call (layout in {@link Protocol}): copied out of the ring, so the group's
     * tasks run after the read returns, as a single task does. A malformed frame ends the worker, as any
     * corrupt transport does.
     */
    private void onTaskGroup(DirectBuffer buffer, int offset, int length) {
        final int count = length < Protocol.TASKS_HEADER + 5 ? 0 : buffer.getInt(offset + 1, ByteOrder.LITTLE_ENDIAN);
        if (count < 2) {
            System.err.println("sharray worker: protocol error: task group of " + length + " bytes, count " + count);
            System.exit(70);
        }
        group.putBytes(0, buffer, offset, length);
        groupLength = length;
        groupReady = true;
    }

    /**
     * Runs the tasks of the group read last, in order, each with its own arrays and its own result. Its
     * function is decoded once; when that fails, every task of the group fails with the cause.
     */
    private void runGroup() {
        final int end = groupLength;
        final int count = group.getInt(1, ByteOrder.LITTLE_ENDIAN);
        final boolean timed = group.getByte(0) == Protocol.TIMED_TASKS;
        final int fnAt = Protocol.TASKS_HEADER;
        final byte mode = group.getByte(fnAt);
        final boolean fnBytesFollow = mode == Protocol.FN_DEFINE || mode == Protocol.FN_MAP_DEFINE;
        final long tasksAt = fnAt + 5L + (fnBytesFollow && fnAt + 9 <= end ? 4L + group.getInt(fnAt + 5, ByteOrder.LITTLE_ENDIAN) : 0);
        if (mode == Protocol.FN_INLINE || (fnBytesFollow && fnAt + 9 > end) || tasksAt < fnAt + 5 || tasksAt > end) {
            System.err.println("sharray worker: protocol error: task group with a malformed function section");
            System.exit(70);
        }
        checkGroupFraming((int) tasksAt, end, count);
        RemoteFunction<Object, Object> groupFn = null;
        Throwable fnError = null;
        try {
            arrays.beginTask();
            valueReader.wrap(group, fnAt, (int) tasksAt - fnAt, arrays.opening());
            groupFn = readFunction(group, (int) tasksAt);
        } catch (Throwable t) {
            fnError = t;
        }
        // a function whose reading opened arrays holds them (a user reducer kept a copy mapped, see PerTaskFunction):
        // each task's beginTask releases them, so each task reads the function anew
        final boolean readPerTask = fnError == null && arrays.openedCount() != 0;
        int pos = (int) tasksAt;
        for (int i = 0; i < count && !stopped; i++) { // a task that exhausted the heap retires the worker
            final int argLength = group.getInt(pos + 8, ByteOrder.LITTLE_ENDIAN);
            taskId = group.getLong(pos, ByteOrder.LITTLE_ENDIAN);
            fn = groupFn;
            arg = null;
            decodeError = fnError;
            arrays.beginTask();
            if (fnError == null) {
                try {
                    if (readPerTask) {
                        valueReader.wrap(group, fnAt, (int) tasksAt - fnAt, arrays.opening());
                        fn = readFunction(group, (int) tasksAt);
                    }
                    valueReader.wrap(group, pos + Protocol.GROUPED_TASK_HEADER, argLength, arrays.opening());
                    arg = readArgument();
                } catch (Throwable t) {
                    decodeError = t;
                }
            }
            answerWakesParent = timed || i == count - 1;
            runTask();
            pos += Protocol.GROUPED_TASK_HEADER + argLength;
        }
        answerWakesParent = true;
        group = ScratchBuffers.trimmed(group, 4096);
    }

    /**
     * Checks that the group's {@code count} tasks, from {@code pos}, exactly fill the message before any of
     * them runs: a malformed frame ends the worker with nothing half done.
     */
    private void checkGroupFraming(int pos, int end, int count) {
        for (int i = 0; i < count; i++) {
            if (end - pos < Protocol.GROUPED_TASK_HEADER) {
                System.err.println("sharray worker: protocol error: task group ends after " + i + " of " + count + " tasks");
                System.exit(70);
            }
            final int argLength = group.getInt(pos + 8, ByteOrder.LITTLE_ENDIAN);
            if (argLength < 0 || argLength > end - pos - Protocol.GROUPED_TASK_HEADER) {
                System.err.println("sharray worker: protocol error: task " + i + " of a group has " + argLength
                    + " argument bytes");
                System.exit(70);
            }
            pos += Protocol.GROUPED_TASK_HEADER + argLength;
        }
        if (pos != end) {
            System.err.println("sharray worker: protocol error: " + (end - pos) + " bytes trail a task group");
            System.exit(70);
        }
    }

    /**
     * Reads a task's fn section from {@link #valueReader}, which is left at the argument.
     *
     * @param end where the message ends in {@code buffer}
     */
    @SuppressWarnings("unchecked")
    private RemoteFunction<Object, Object> readFunction(DirectBuffer buffer, int end) {
        final RemoteFunction<Object, Object> fn;
        final byte mode = valueReader.readByte();
        final int fnId = valueReader.readInt();
        if (mode == Protocol.FN_REF) {
            final Object entry = functions.get(fnId);
            if (entry == null) {
                throw new MalformedDataException("unknown function id " + fnId);
            }
            fn = cachedFunctionOrThrow(entry);
        } else if (mode == Protocol.FN_MAP_REF) {
            fn = cachedMapFunction(fnId);
        } else if (mode == Protocol.FN_MAP_DEFINE) {
            fn = defineMapFunction(fnId, buffer, end);
        } else if (mode == Protocol.FN_INLINE || mode == Protocol.FN_DEFINE) {
            final int fnLength = valueReader.readCount(1);
            final int at = valueReader.position();
            try {
                fn = (RemoteFunction<Object, Object>) FunctionCodec.decode(buffer, at, fnLength, reducers, arrays.opening());
            } catch (Throwable e) {
                if (mode == Protocol.FN_DEFINE) {
                    functions.put(fnId, e); // the parent now refers to it by id only: later tasks get this cause
                }
                throw e;
            }
            valueReader.wrap(buffer, at + fnLength, end - at - fnLength, arrays.opening());
            if (mode == Protocol.FN_DEFINE) {
                functions.put(fnId, fn);
            }
        } else {
            throw new MalformedDataException("unknown function mode " + mode);
        }
        return fn;
    }

    /** Reads the task's argument, the rest of {@link #valueReader}, for the function {@link #fn}. */
    private Object readArgument() {
        // a function declared on NdArray / SharedArray / Object gets a large heap array as the shared
        // copy the parent made (no copy back to the heap); one declared on double[] or HeapArray gets
        // its own type, rebuilt on the heap
        final Object value = FunctionCodec.takesSharedArray(fn) ? valueReader.readValueKeepingShared() : valueReader.readValue();
        if (valueReader.remaining() != 0) {
            throw new MalformedDataException(valueReader.remaining() + " bytes trail the task argument");
        }
        return value;
    }

    /**
     * Decodes the function of map call {@code mapId} (its length and bytes are next in {@link #valueReader},
     * which is left at the argument) and caches it for the call's later tasks. Any failure is cached too, and
     * thrown: the parent, mirroring this cache, sends the call's later tasks to this worker by id only.
     *
     * @param end where the message ends in {@code buffer}
     */
    @SuppressWarnings("unchecked")
    private RemoteFunction<Object, Object> defineMapFunction(int mapId, DirectBuffer buffer, int end) {
        final int openedBefore = arrays.openedCount();
        Object entry;
        try {
            final int fnLength = valueReader.readCount(1);
            final int at = valueReader.position();
            entry = FunctionCodec.decode(buffer, at, fnLength, reducers, arrays.opening());
            valueReader.wrap(buffer, at + fnLength, end - at - fnLength, arrays.opening());
            if (arrays.openedCount() != openedBefore) {
                // arrays are released when this task ends: a cached function holding them would outlive them. The
                // parent caches a function whose large heap arrays crossed as copies, and a user reducer may keep
                // such a copy mapped (ValueReader.readValueKeepingShared): its bytes are kept, decoded per task
                final byte[] bytes = new byte[fnLength];
                buffer.getBytes(at, bytes);
                mapFunctions.put(mapId, new PerTaskFunction(bytes));
                return (RemoteFunction<Object, Object>) entry;
            }
        } catch (Throwable e) {
            // cached whatever it is: the parent now sends this call's tasks by id only
            entry = e;
        }
        mapFunctions.put(mapId, entry);
        return cachedFunctionOrThrow(entry);
    }

    private RemoteFunction<Object, Object> cachedMapFunction(int mapId) {
        final Object entry = mapFunctions.get(mapId);
        if (entry == null) {
            throw new MalformedDataException("unknown map function id " + mapId);
        }
        if (entry instanceof PerTaskFunction) {
            return ((PerTaskFunction) entry).decode(reducers, arrays);
        }
        return cachedFunctionOrThrow(entry);
    }

    /**
     * A map call's function that opened shared arrays when decoded (a user reducer kept a copy mapped): its bytes,
     * decoded anew for each task, so its arrays are opened and released with the task as for an uncached function.
     */
    private static final class PerTaskFunction {
        private final byte[] bytes;

        PerTaskFunction(byte[] bytes) {
            this.bytes = bytes;
        }

        @SuppressWarnings("unchecked")
        RemoteFunction<Object, Object> decode(Reducers reducers, TaskArrays arrays) {
            return (RemoteFunction<Object, Object>) FunctionCodec.decode(new org.agrona.concurrent.UnsafeBuffer(bytes),
                0, bytes.length, reducers, arrays.opening());
        }
    }

    /** @return a cached function, or throws its cached decoding failure */
    @SuppressWarnings("unchecked")
    private static RemoteFunction<Object, Object> cachedFunctionOrThrow(Object entry) {
        if (entry instanceof RemoteFunction) {
            return (RemoteFunction<Object, Object>) entry;
        }
        final Throwable t = (Throwable) entry;
        // a new exception per task, with the first one's message: the caller sees the same cause each time. A
        // MalformedDataException's own cause is taken, not the exception: its trace said the message twice
        if (t instanceof MalformedDataException) {
            throw new MalformedDataException(t.getMessage(), t.getCause() != null ? t.getCause() : t);
        }
        throw new MalformedDataException("cannot decode the function: " + t, t);
    }

    private void runTask() {
        Object result = null;
        Throwable error = decodeError;
        if (error == null) {
            try {
                result = fn.apply(arg);
            } catch (Throwable t) {
                error = t;
            }
            // a function that left this thread interrupted must not interrupt the next task (its first sleep or
            // wait would throw) nor turn the idle loop's parks into a busy spin
            Thread.interrupted();
        }
        fn = null;
        arg = null;
        int length;
        boolean holds = false;
        if (error == null) {
            try {
                valueWriter.wrap(out, Protocol.RESULT_HEADER, arrays.resultSharing());
                valueWriter.writeValue(result);
                length = valueWriter.position();
                holds = arrays.resultHoldsArrays();
            } catch (Throwable t) {
                // e.g. a reducer threw after an array of the result was written: release what the result
                // would have carried (the function's own arrays too), then report the failure instead
                arrays.abandonResult(t);
                error = t instanceof ReducerException ? asResultFailure((ReducerException) t, result) : t;
                length = 0;
            }
        } else {
            length = 0;
        }
        if (error != null) {
            valueWriter.wrap(out, Protocol.RESULT_HEADER, null);
            try {
                RemoteErrors.write(error, valueWriter);
            } catch (RuntimeException | Error failure) { // e.g. a StackOverflowError in a user's exception
                valueWriter.wrap(out, Protocol.RESULT_HEADER, null);
                RemoteErrors.writeClassOnly(error, failure, valueWriter);
            }
            length = valueWriter.position();
        }
        final OutOfMemoryError exhausted = error == null ? null : exhaustedHeap(error);
        final boolean retire = exhausted != null;
        out.putByte(0, Protocol.RESULT);
        out.putLong(1, taskId, ByteOrder.LITTLE_ENDIAN);
        out.putByte(9, error == null ? Protocol.OK : Protocol.ERROR);
        out.putByte(10, (byte) ((holds ? Protocol.HOLDS_ARRAYS : 0) | (retire ? Protocol.RETIRING : 0)));
        // arrays this task opened are released before the answer goes out, so a parent that frees
        // them on completion never waits for us; result arrays are held until the parent's RELEASE
        arrays.endTask(taskId, holds);
        writer.write(out, 0, length, keepWriting);
        if (answerWakesParent || retire) {
            wakeParentIfSleeping();
        }
        out = ScratchBuffers.trimmed(out, 4096);
        // the reader and writer must not keep this task's (possibly large) message buffers reachable
        valueWriter.wrap(out, 0, null);
        valueReader.wrap(ScratchBuffers.EMPTY, 0, 0, null);
        if (retire) {
            stopped = true;
            // its own words: not always the heap ("Map failed" is address space, "Direct buffer memory" its own limit)
            System.err.println("sharray worker: a task ran out of memory (" + describe(exhausted)
                + "); this worker exits and a new one replaces it");
        }
    }

    /**
     * A result that cannot be written fails its task with the reducers' message, which named a type and nothing
     * else: the caller, who gets it as a task failure, could not tell it from a failure of the function. Says that
     * it was the result, keeping the type, the cause and the stack trace.
     */
    static ReducerException asResultFailure(ReducerException e, Object result) {
        final ReducerException named = new ReducerException(e.getMessage() + " (writing the task's result, a "
            + result.getClass().getTypeName() + ", to send it back)", e.getCause());
        named.setStackTrace(e.getStackTrace());
        return named;
    }

    /**
     * The {@link OutOfMemoryError} a task's failure is, or has among the causes its report carries, or null. This JVM may then be
     * left broken for later tasks (a class whose static initializer ran out of heap stays unusable: every later use
     * throws NoClassDefFoundError; a task's leak keeps failing the next ones), so the worker retires after answering
     * and a fresh one takes its place.
     */
    static OutOfMemoryError exhaustedHeap(Throwable error) {
        try {
            Throwable t = error;
            for (int i = 0; t != null && i < RemoteErrors.MAX_CAUSES; i++, t = t.getCause()) {
                if (t instanceof OutOfMemoryError) {
                    return (OutOfMemoryError) t;
                }
            }
        } catch (RuntimeException | Error ignored) {
            // a user's getCause() that throws: judge by what was seen
        }
        return null;
    }

    /** @return "OutOfMemoryError: its message", or only the class name when the message cannot be had */
    private static String describe(OutOfMemoryError e) {
        try {
            return e.toString();
        } catch (RuntimeException | Error failure) {
            return e.getClass().getName();
        }
    }
}
