package dev.sharray.pool;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.IntHashSet;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Parent-side handle of one worker JVM: its process, its rings, its output forwarders and the task
 * it is running. Writes to the worker's ring happen under {@link #sendLock} (the ring has a single
 * producer); reads of its result ring happen only under the pool's pump lock.
 */
final class Worker {
    static final int STARTING = 0;
    static final int IDLE = 1;
    static final int BUSY = 2;
    /** Timed out or garbled and being killed, or exiting after a task exhausted its heap; the exit handler replaces it. */
    static final int KILLED = 3;
    static final int STOPPING = 4;
    static final int DEAD = 5;
    /** How long the pool waits for a worker's process to end after asking it to, or killing it. */
    static final long EXIT_GRACE_MILLIS = 5_000;

    final int id;
    final Process process;
    final RingFile rings;
    final Frames.Reader reader;
    /** When the pump last read records of a message of this worker's still part way through ({@link System#nanoTime}; under the pump lock). */
    long lastReadNanos;
    final OutputForwarder stdout;
    final OutputForwarder stderr;
    final AtomicInteger state = new AtomicInteger(STARTING);
    final AtomicReference<Task> inFlight = new AtomicReference<>();
    final ReentrantLock sendLock = new ReentrantLock();
    /** Stateless functions this worker has cached; guarded by sendLock. */
    private final IntHashSet knownFunctions = new IntHashSet();
    /** Map-call functions this worker caches, mirroring its own {@link FunctionCache}; guarded by sendLock. */
    private final FunctionCache<Boolean> mapFunctions = new FunctionCache<>();
    private final Frames.Writer writer;
    /** Staging for messages too long for one ring record (and for control messages). */
    private ExpandableArrayBuffer sendBuffer = new ExpandableArrayBuffer(256);
    /** Whether a send blocked on a full ring should keep waiting; one instance, so sends allocate nothing. */
    private final java.util.function.BooleanSupplier keepSending = this::sendable;
    /** Result sink bound to this worker, created once so polling allocates nothing. */
    Frames.Sink resultSink;
    /**
     * The task that timed out or was cancelled on this worker (which is being killed for it), the task the worker
     * would run after it, and whether the stopped task answered after all, so that one may have started (pump lock
     * held).
     */
    Task stopped;
    Task afterStopped;
    boolean stoppedAnswered;
    /**
     * A timed-out (or cancelled) task whose arrays stay pinned until this worker's process has ended: the dying worker may still
     * count references on them, and a last release while it dies (the caller's, right after the timeout) finds it
     * alive and leaves the files until the parent exits. Taken once, by whoever handles the exit.
     */
    final AtomicReference<Task> pinnedUntilExit = new AtomicReference<>();
    long pid;
    /** The worker's maximum heap, as its HELLO said ({@code Runtime.maxMemory()}); 0 until then. */
    volatile long maxHeapBytes;

    Worker(int id, Process process, RingFile rings, OutputForwarder stdout, OutputForwarder stderr) {
        this.id = id;
        this.process = process;
        this.rings = rings;
        this.reader = new Frames.Reader(rings.toParent());
        this.writer = new Frames.Writer(rings.toWorker());
        this.stdout = stdout;
        this.stderr = stderr;
        this.pid = process.pid();
    }

    /** @return whether the worker was idle and is now reserved for the caller's task */
    boolean claim() {
        return state.compareAndSet(IDLE, BUSY);
    }

    /**
     * Sends a task to this (claimed) worker, with the tasks chained behind it by {@link Task#nextInGroup} in
     * the same message. A message that fits one ring record is encoded straight into the ring (the argument
     * bytes are copied once, from the task into the ring); a longer one is staged in {@link #sendBuffer} and
     * fragmented.
     *
     * @return false when the worker died or is stopping: the message may be incomplete
     */
    boolean send(Task t) {
        sendLock.lock();
        try {
            if (state.get() != BUSY) {
                return false;
            }
            final byte mode = functionMode(t.fn);
            final long length = t.nextInGroup == null ? taskLength(t, mode) : groupLength(t, mode);
            markMessageStart(t);
            if (length <= writer.maxWhole()) {
                final int at = writer.claim((int) length, keepSending);
                if (at < 0) {
                    return false;
                }
                try {
                    encode(writer.claimed(), at, t, mode);
                } catch (RuntimeException | Error e) {
                    writer.abort(at); // never publish half a message
                    throw e;
                }
                writer.commit(at);
                markSent(t);
                sentFunction(t.fn, mode);
                wakeIfSleeping();
                return true;
            }
            if (length > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("task message of " + length + " bytes is over the 2 GiB limit");
            }
            final int n = encode(sendBuffer, 0, t, mode);
            final boolean sent = writer.write(sendBuffer, 0, n, keepSending);
            sendBuffer = ScratchBuffers.trimmed(sendBuffer, 256);
            if (!sent) {
                return false;
            }
            markSent(t);
            sentFunction(t.fn, mode);
            wakeIfSleeping();
            return true;
        } finally {
            sendLock.unlock();
        }
    }

    /** Marks every task of the message headed by {@code t} as in the ring: one may now be queued behind any of them. */
    private static void markSent(Task t) {
        for (Task g = t; g != null; g = g.nextInGroup) {
            g.sent = true;
        }
    }

    /**
     * Marks where the message of {@code t} starts in the ring, on each task of its group (any of them may be the
     * one running when the worker dies). Before the message is written (send lock held): once the worker may
     * answer, the pump changes the chain, and after {@link #refuseSends} every task this worker may have got is
     * marked.
     */
    private void markMessageStart(Task t) {
        final long start = writer.writtenUpTo();
        for (Task g = t; g != null; g = g.nextInGroup) {
            g.messageStart = start;
        }
    }

    /**
     * Refuses every send from now on, waiting for one in progress: afterwards each task is either marked sent,
     * or its send fails and its sender requeues it. A sender waiting for room in the ring gives up at once.
     */
    void refuseSends() {
        state.set(KILLED); // a sender waiting for room in the ring sees it and gives up
        sendLock.lock(); // waits out a send in progress: it has marked its task sent, or failed
        sendLock.unlock();
    }

    /**
     * @param t a task given to this worker, after {@link #refuseSends} (its marks visible); the rings still mapped
     * @return whether this worker read past the start of its message, so it may have started the task. A task
     *         is only run once its whole message has been read (the read position moves after each record's
     *         handler returns), so false means it never started.
     */
    boolean readPastMessageOf(Task t) {
        return t.messageStart != Task.NOT_WRITTEN && writer.readUpTo() > t.messageStart;
    }

    private static int encode(MutableDirectBuffer b, int offset, Task t, byte mode) {
        return t.nextInGroup == null ? encodeTask(b, offset, t, mode) : encodeGroup(b, offset, t, mode);
    }

    /**
     * How a task's function travels to this worker, from what the worker has cached (send lock held): a stateless function once per worker for good, a map call's
     * function once per worker per call (while the worker's {@link FunctionCache}, mirrored here, keeps
     * it), any other function inline every time.
     */
    private byte functionMode(FunctionCodec.Encoded fn) {
        if (fn.id != 0) {
            return knownFunctions.contains(fn.id) ? Protocol.FN_REF : Protocol.FN_DEFINE;
        }
        if (fn.mapId != 0) {
            return mapFunctions.contains(fn.mapId) ? Protocol.FN_MAP_REF : Protocol.FN_MAP_DEFINE;
        }
        return Protocol.FN_INLINE;
    }

    /**
     * The message carrying {@code fn} as {@code mode} is in the ring: record what the worker will cache
     * when it reads it. Only now, so a message that failed to go out leaves the mirror as the worker sees it.
     */
    private void sentFunction(FunctionCodec.Encoded fn, byte mode) {
        switch (mode) {
            case Protocol.FN_DEFINE -> knownFunctions.add(fn.id);
            // get() marks it recently used, exactly as the worker's get() will when it reads the reference
            case Protocol.FN_MAP_REF -> mapFunctions.get(fn.mapId);
            case Protocol.FN_MAP_DEFINE -> mapFunctions.put(fn.mapId, Boolean.TRUE);
            default -> {
            }
        }
    }

    /**
     * Map call {@code mapId} is over: if this worker still caches its function, it is told to drop it. Sent
     * after the call's last task, so no task of the call can come after it.
     */
    void forget(int mapId) {
        sendLock.lock();
        try {
            if (mapFunctions.remove(mapId) != null) {
                sendControl(Protocol.FORGET, mapId);
            }
        } finally {
            sendLock.unlock();
        }
    }

    /** The length of {@code t}'s TASK message when its function goes as {@code mode}; long, so a sum past 2 GiB shows. */
    static long taskLength(Task t, byte mode) {
        return Protocol.TASK_HEADER + fnSectionLength(t, mode) + t.arg.length;
    }

    /** The length of the TASKS message of the group headed by {@code head}. */
    static long groupLength(Task head, byte mode) {
        long length = Protocol.TASKS_HEADER + fnSectionLength(head, mode);
        for (Task t = head; t != null; t = t.nextInGroup) {
            length += Protocol.GROUPED_TASK_HEADER + t.arg.length;
        }
        return length;
    }

    private static long fnSectionLength(Task t, byte mode) {
        return mode == Protocol.FN_REF || mode == Protocol.FN_MAP_REF ? 5 : 9L + t.fn.bytes.length;
    }

    /** Writes {@code t}'s TASK message at {@code offset} (layout in {@link Protocol}); returns its length. */
    private static int encodeTask(MutableDirectBuffer b, int offset, Task t, byte mode) {
        b.putByte(offset, Protocol.TASK);
        b.putLong(offset + 1, t.id, ByteOrder.LITTLE_ENDIAN);
        int pos = encodeFunction(b, offset + Protocol.TASK_HEADER, t.fn, mode);
        b.putBytes(pos, t.arg);
        pos += t.arg.length;
        return pos - offset;
    }

    /** Writes the TASKS message of the group headed by {@code head} (all of one map call: one function). */
    private static int encodeGroup(MutableDirectBuffer b, int offset, Task head, byte mode) {
        b.putByte(offset, head.timeout == null ? Protocol.TASKS : Protocol.TIMED_TASKS); // one call: one timeout
        int count = 0;
        int pos = encodeFunction(b, offset + Protocol.TASKS_HEADER, head.fn, mode);
        for (Task t = head; t != null; t = t.nextInGroup) {
            b.putLong(pos, t.id, ByteOrder.LITTLE_ENDIAN);
            b.putInt(pos + 8, t.arg.length, ByteOrder.LITTLE_ENDIAN);
            b.putBytes(pos + Protocol.GROUPED_TASK_HEADER, t.arg);
            pos += Protocol.GROUPED_TASK_HEADER + t.arg.length;
            count++;
        }
        b.putInt(offset + 1, count, ByteOrder.LITTLE_ENDIAN);
        return pos - offset;
    }

    /** Writes the fn section (mode, id, and the bytes unless the worker has them); returns where it ends. */
    private static int encodeFunction(MutableDirectBuffer b, int pos, FunctionCodec.Encoded fn, byte mode) {
        final boolean forMap = mode == Protocol.FN_MAP_DEFINE || mode == Protocol.FN_MAP_REF;
        b.putByte(pos, mode);
        b.putInt(pos + 1, forMap ? fn.mapId : fn.id, ByteOrder.LITTLE_ENDIAN);
        pos += 5;
        if (mode != Protocol.FN_REF && mode != Protocol.FN_MAP_REF) {
            b.putInt(pos, fn.bytes.length, ByteOrder.LITTLE_ENDIAN);
            b.putBytes(pos + 4, fn.bytes);
            pos += 4 + fn.bytes.length;
        }
        return pos;
    }

    /** Sends a one-field control message (RELEASE, STOP, FORGET); false when the worker is gone. */
    boolean sendControl(byte kind, long taskId) {
        sendLock.lock();
        try {
            final int s = state.get();
            if (s == DEAD || s == KILLED) {
                return false;
            }
            sendBuffer.putByte(0, kind);
            sendBuffer.putLong(1, taskId, ByteOrder.LITTLE_ENDIAN);
            final boolean sent = writer.write(sendBuffer, 0, 9, keepSending);
            wakeIfSleeping();
            return sent;
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * A message went into the ring (send lock held): rings the doorbell, a byte on the worker's stdin, if the
     * worker sleeps (see {@link RingFile}). Also called while a writer waits for room: a sleeping worker
     * would not make any.
     */
    private void wakeIfSleeping() {
        if (rings.takeSleeping()) {
            try {
                final OutputStream stdin = process.getOutputStream();
                stdin.write(0);
                stdin.flush();
            } catch (IOException ignored) {
                // the worker is gone, or its stdin was closed at stop: its exit is handled elsewhere
            }
        }
    }

    /** @return whether the worker has raised its sleeping flag (send lock taken: the rings may be unmapped) */
    boolean asleep() {
        sendLock.lock();
        try {
            return state.get() != DEAD && rings.sleeping();
        } finally {
            sendLock.unlock();
        }
    }

    private boolean sendable() {
        wakeIfSleeping();
        final int s = state.get();
        return s != DEAD && s != KILLED && process.isAlive();
    }

    /** Unmaps the rings once no thread can touch them: the caller has removed this worker from the pump. */
    void unmap() {
        sendLock.lock();
        try {
            state.set(DEAD);
            rings.close();
        } finally {
            sendLock.unlock();
        }
    }

    /** @return the process's exit code once it has ended (waiting up to {@link #EXIT_GRACE_MILLIS}), -1 if it has not */
    int exitCode() {
        awaitExit();
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** Waits up to {@link #EXIT_GRACE_MILLIS} for the process to end. */
    void awaitExit() {
        awaitExit(process);
    }

    /** Waits up to {@link #EXIT_GRACE_MILLIS} for {@code p} to end. */
    static void awaitExit(Process p) {
        Uninterruptibly.waitFor(p, EXIT_GRACE_MILLIS); // an interrupted close() must still wait for its workers
    }

    /**
     * @return whether the worker's process is stopped ({@code T}: SIGSTOP, Ctrl-Z; {@code t}: a tracer's stop), as
     *     {@code /proc/<pid>/stat} says; false when that cannot be read
     */
    boolean isStopped() {
        try {
            final String stat = new String(Files.readAllBytes(Path.of("/proc/" + process.pid() + "/stat")),
                StandardCharsets.US_ASCII);
            final int afterName = stat.lastIndexOf(')') + 2; // the name, in parentheses, may hold blanks and ')'
            return afterName < stat.length() && (stat.charAt(afterName) == 'T' || stat.charAt(afterName) == 't');
        } catch (IOException | RuntimeException e) {
            return false; // ended, or no /proc
        }
    }

    /** Closes stdin: the worker's parent watch sees end-of-file and exits. */
    void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public String toString() {
        return "worker " + id + " (pid " + pid + ")";
    }
}
