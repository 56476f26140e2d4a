package dev.sharray.docs;

import dev.sharray.DType;
import dev.sharray.HeapArray;
import dev.sharray.LeakDetection;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/** Explicit lifecycle: scoped arrays, views, handles for other threads, crashes and leak reports. */
public final class LifecycleExample {
    /** What the example observed. */
    public record Outcome(long referencesWithTwoViews, double seenThroughTranspose, double heapResult,
                          boolean fileGoneAfterClose,
                          String afterRelease, boolean heldByChildAfterParentReleased,
                          boolean goneAfterChildKilledAndReaped, long leaksReported) {
    }

    /** Runs the whole tour. */
    public static Outcome run() throws Exception {
        long references;
        double seen;
        double heapResult;
        Path file;
        // 1. Scoped arrays: try-with-resources releases every handle, views included.
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4, 4)) {
            file = a.path();
            try (SharedArray row1 = a.select(0, 1);
                 SharedArray t = a.transpose()) {
                row1.setDouble(5.0, 2);                          // a[1, 2] = 5
                seen = t.getDouble(2, 1);                       // 5.0: same memory
                references = SharedArrays.localReferences(a);   // 3: a, row1, t
            }
            // 2. Another thread gets its own handle: retain() takes a reference it releases itself.
            SharedArray forWorker = a.retain();
            Thread worker = new Thread(() -> {
                try (forWorker) {
                    forWorker.setDouble(1.0, 0, 0);
                }
            });
            worker.start();
            worker.join();
            // 3. Arithmetic gives plain heap results: nothing to release.
            HeapArray doubled = a.multiply(2.0);
            heapResult = doubled.getDouble(1, 2);               // 10.0
        }                                                       // last reference: both files deleted
        boolean gone = !Files.exists(file);

        // 4. Use after release is a clear exception, never a crash; release is idempotent.
        SharedArray b = SharedArray.create(DType.INT32, 10);
        b.release();
        b.release();
        String afterRelease;
        try {
            b.getInt(0);
            afterRelease = "no exception";
        } catch (IllegalStateException e) {
            afterRelease = e.getMessage();
        }

        // 5. A holder in another JVM keeps the array alive; when it crashes, its reference is reclaimed.
        boolean heldByChild;
        boolean goneAfterCrash;
        SharedArray shared = SharedArray.create(DType.FLOAT64, 1_000_000);
        Path sharedFile = shared.path();
        Process child = ZeroCopyHandoffExample.startJvm(Holder.class.getName());
        try (PrintWriter toChild = new PrintWriter(child.getOutputStream(), true, StandardCharsets.UTF_8);
             BufferedReader fromChild = new BufferedReader(
                 new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            toChild.println(HexFormat.of().formatHex(shared.descriptor().toBytes()));
            fromChild.readLine();                               // "holding"
            shared.release();                                   // our reference is gone...
            heldByChild = Files.exists(sharedFile);             // ...but the child still holds the file
            child.destroyForcibly();                            // SIGKILL: no shutdown hook runs
            child.waitFor(10, TimeUnit.SECONDS);
            SharedArrays.reap();                                // finds the dead slot, deletes the array
            goneAfterCrash = !Files.exists(sharedFile);
        }

        // 6. Leaks are reported, never freed behind your back (paranoid: with the creation stack trace).
        LeakDetection before = SharedArrays.leakDetection();
        SharedArrays.setLeakDetection(LeakDetection.PARANOID);
        long leaks = SharedArrays.leaksReported();
        try {
            createAndForget();
            for (int i = 0; i < 100 && SharedArrays.leaksReported() == leaks; i++) {
                System.gc();
                Thread.sleep(20);
            }
            leaks = SharedArrays.leaksReported() - leaks;       // 1: logged as "LEAK: SharedArray ..."
        } finally {
            SharedArrays.setLeakDetection(before);
        }
        return new Outcome(references, seen, heapResult, gone, afterRelease, heldByChild, goneAfterCrash, leaks);
    }

    private static void createAndForget() {
        SharedArray.create(DType.INT8, 16);                     // never released: a leak
    }

    /** A JVM that opens a descriptor from stdin and holds it until it is killed. */
    public static final class Holder {
        private Holder() {
        }

        /** Opens and holds. */
        public static void main(String[] args) throws Exception {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            SharedArray held = SharedArray.open(dev.sharray.Descriptor.fromBytes(HexFormat.of().parseHex(in.readLine())));
            System.out.println("holding " + held.size());
            System.out.flush();
            in.readLine();
            held.release();
        }
    }
}
