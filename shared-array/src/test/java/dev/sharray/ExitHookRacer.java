package dev.sharray;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A child JVM for {@link ExitWhileThreadsRunTest}: what a thread that still runs while the exit hook runs (as
 * after {@code System.exit} from another thread) does with its handles. It creates an array, prints
 * {@code "desc HEX"}, waits for a line, runs the exit hook ({@link Segments#onExit()}) at that point of its own
 * work, and then: takes a handle and gives it back, releases a handle, reads through a third, and tries to
 * create an array (refused, saying the JVM is exiting). Prints
 * {@code "ok"}, or {@code "failed "} and what went wrong.
 */
public final class ExitHookRacer {
    private ExitHookRacer() {
    }

    public static void main(String[] args) throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        a.setDouble(1.5, 7);
        final SharedArray r = a.retain();
        final SharedArray v = a.slice(0, 0, 10, 1);
        System.out.println("desc " + HexFormat.of().formatHex(a.descriptor().toBytes()));
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        try {
            Segments.onExit(); // the hook, while this thread still works
            try {
                r.retain().release(); // a handle taken and given back by a thread that runs on
            } catch (IllegalStateException e) {
                // refused: the hook deleted the array (no other process held it); no reference was taken
            }
            r.release();
            final double x = v.getDouble(7);
            if (x != 1.5) {
                System.out.println("failed: read " + x + " through a handle not released");
                return;
            }
            v.release();
            a.release();
            try {
                final SharedArray late = SharedArray.create(DType.FLOAT64, 10);
                System.out.println("failed: created " + late.path() + " after the exit hook");
                return;
            } catch (IllegalStateException e) {
                if (!e.getMessage().contains("this JVM is exiting")) {
                    System.out.println("failed: a create after the exit hook said " + e);
                    return;
                }
            }
            System.out.println("ok");
        } catch (Throwable t) {
            System.out.println("failed: " + t);
        }
    }
}
