package dev.sharray.pool;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.IntHashSet;

import java.io.IOException;
import java.nio.ByteOrder;
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
    /** Timed out and being killed; the exit handler replaces it. */
    static final int KILLED = 3;
    static final int STOPPING = 4;
    static final int DEAD = 5;

    final int id;
    final Process process;
    final RingFile rings;
    final Frames.Reader reader;
    final OutputForwarder stdout;
    final OutputForwarder stderr;
    final AtomicInteger state = new AtomicInteger(STARTING);
    final AtomicReference<Task> inFlight = new AtomicReference<>();
    final ReentrantLock sendLock = new ReentrantLock();
    /** Stateless functions this worker has cached; guarded by sendLock. */
    private final IntHashSet knownFunctions = new IntHashSet();
    private final Frames.Writer writer;
    private final ExpandableArrayBuffer sendBuffer = new ExpandableArrayBuffer(256);
    /** Result sink bound to this worker, created once so polling allocates nothing. */
    Frames.Sink resultSink;
    long pid;

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
     * Sends a task to this (claimed) worker.
     *
     * @return false when the worker died or is stopping: the message may be incomplete
     */
    boolean send(Task t) {
        sendLock.lock();
        try {
            if (state.get() != BUSY) {
                return false;
            }
            final ExpandableArrayBuffer b = sendBuffer;
            b.putByte(0, Protocol.TASK);
            b.putLong(1, t.id, ByteOrder.LITTLE_ENDIAN);
            int pos = Protocol.TASK_HEADER;
            final FunctionCodec.Encoded fn = t.fn;
            if (fn.id != 0 && knownFunctions.contains(fn.id)) {
                b.putByte(pos, Protocol.FN_REF);
                b.putInt(pos + 1, fn.id, ByteOrder.LITTLE_ENDIAN);
                pos += 5;
            } else {
                b.putByte(pos, fn.id != 0 ? Protocol.FN_DEFINE : Protocol.FN_INLINE);
                b.putInt(pos + 1, fn.id, ByteOrder.LITTLE_ENDIAN);
                b.putInt(pos + 5, fn.bytes.length, ByteOrder.LITTLE_ENDIAN);
                b.putBytes(pos + 9, fn.bytes);
                pos += 9 + fn.bytes.length;
                if (fn.id != 0) {
                    knownFunctions.add(fn.id);
                }
            }
            b.putBytes(pos, t.arg);
            pos += t.arg.length;
            return writer.write(b, 0, pos, this::sendable);
        } finally {
            sendLock.unlock();
        }
    }

    /** Sends a one-field control message (RELEASE, STOP); false when the worker is gone. */
    boolean sendControl(byte kind, long taskId) {
        sendLock.lock();
        try {
            final int s = state.get();
            if (s == DEAD || s == KILLED) {
                return false;
            }
            sendBuffer.putByte(0, kind);
            sendBuffer.putLong(1, taskId, ByteOrder.LITTLE_ENDIAN);
            return writer.write(sendBuffer, 0, 9, this::sendable);
        } finally {
            sendLock.unlock();
        }
    }

    private boolean sendable() {
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
