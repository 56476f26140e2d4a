package dev.sharray;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reports handles that became unreachable without {@code release()}. It only reports: the mapping stays
 * (its segment is still referenced) until process exit or the reaper, because freeing memory from a
 * reference-queue thread while a view might still use it is how JVMs crash. The queue is polled on the
 * caller's thread when handles are created and when {@link #leaksReported()} is asked; there is no
 * background thread.
 */
final class LeakDetector {
    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    private static final Set<Tracker> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicLong LEAKS = new AtomicLong();
    private static volatile String lastReport = "";
    private static final int SAMPLING = Math.max(1, Integer.getInteger("sharray.leakDetection.samplingInterval", 16));
    private static volatile LeakDetection level = parse(System.getProperty("sharray.leakDetection", "simple"));

    private LeakDetector() {
    }

    private static LeakDetection parse(String value) {
        try {
            return LeakDetection.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            Log.get().warn("unknown sharray.leakDetection '{}'; using simple", value);
            return LeakDetection.SIMPLE;
        }
    }

    static LeakDetection level() {
        return level;
    }

    static void level(LeakDetection newLevel) {
        level = newLevel;
    }

    /** @return a tracker to close on release, or null when this handle is not tracked */
    static Tracker track(SharedArray handle) {
        LeakDetection l = level;
        if (l == LeakDetection.DISABLED) {
            return null;
        }
        poll();
        if (l == LeakDetection.SIMPLE && ThreadLocalRandom.current().nextInt(SAMPLING) != 0) {
            return null;
        }
        Tracker t = new Tracker(handle, l == LeakDetection.PARANOID ? new Throwable("created here") : null);
        LIVE.add(t);
        return t;
    }

    /** Reports every tracked handle collected without release. */
    static void poll() {
        Object ref;
        while ((ref = QUEUE.poll()) != null) {
            Tracker t = (Tracker) ref;
            if (LIVE.remove(t)) {
                LEAKS.incrementAndGet();
                lastReport = t.description + (t.creation == null ? "" : " created at " + stackOf(t.creation));
                if (t.creation != null) {
                    Log.get().warn("LEAK: {} was not released before it became unreachable; its file stays until "
                        + "process exit. Created at:", t.description, t.creation);
                } else {
                    Log.get().warn("LEAK: {} was not released before it became unreachable; its file stays until "
                        + "process exit. Run with -Dsharray.leakDetection=paranoid to see where it was created.",
                        t.description);
                }
            }
        }
    }

    private static String stackOf(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }

    /** @return the text of the latest leak report, for tests */
    static String lastReport() {
        return lastReport;
    }

    /** @return how many leaks were reported in this process so far (polls first) */
    static long leaksReported() {
        poll();
        return LEAKS.get();
    }

    /** Phantom reference to a handle plus what to say if it leaks. */
    static final class Tracker extends PhantomReference<Object> {
        final String description;
        final Throwable creation;

        Tracker(SharedArray handle, Throwable creation) {
            super(handle, QUEUE);
            this.description = handle.describe();
            this.creation = creation;
        }

        /** The handle was released properly. */
        void close() {
            LIVE.remove(this);
            clear();
        }
    }
}
