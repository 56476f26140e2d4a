package dev.sharray;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * A child JVM for {@link SparseFileTest} and {@link MemoryLimitTest}: opens the {@code .npy} file {@code args[1]}, or
 * without it the array whose descriptor (hex) it reads from stdin, writes into element {@code args[0]}, and says
 * "refused <exception>" or "opened, wrote" (or "opened, write failed <error>"), then waits for stdin to close.
 */
public final class SparseOpenChild {
    private SparseOpenChild() {
    }

    public static void main(String[] args) throws Exception {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final Descriptor d = args.length > 1 ? null : Descriptor.fromBytes(HexFormat.of().parseHex(in.readLine()));
        String outcome;
        try (SharedArray a = d == null ? SharedArray.openNpy(Path.of(args[1])) : SharedArray.open(d)) {
            try {
                a.setDouble(1.0, Long.parseLong(args[0]));
                System.gc(); // JDK 17 may raise the fault's InternalError only at a safepoint
                outcome = "opened, wrote";
            } catch (Throwable e) {
                outcome = "opened, write failed " + e;
            }
        } catch (RuntimeException e) {
            outcome = "refused " + e;
        }
        System.out.println(outcome.replace('\n', ' '));
        System.out.flush();
        in.readLine();
    }
}
