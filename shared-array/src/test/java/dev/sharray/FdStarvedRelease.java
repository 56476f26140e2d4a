package dev.sharray;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A child JVM for {@link OutOfDescriptorsTest}: opens the array whose descriptor (hex) it reads from stdin, uses up
 * its file descriptors, releases the array and says "released" (or "failed ..."), then waits for stdin to close.
 */
public final class FdStarvedRelease {
    private FdStarvedRelease() {
    }

    public static void main(String[] args) throws Exception {
        // what a release loads (classes are read through file descriptors), while there are some
        SharedArray.create(DType.FLOAT64, 10).release();
        SharedArrays.forgetAtExit(Path.of("nothing"));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final SharedArray a = SharedArray.open(Descriptor.fromBytes(HexFormat.of().parseHex(in.readLine())));
        final List<FileInputStream> used = new ArrayList<>();
        try {
            while (true) {
                used.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException e) {
            // out of file descriptors (EMFILE)
        }
        ProcessIdentity.forgetVerified(); // its next check of the other holder reads that holder's /proc/<pid>/stat
        String outcome = "released";
        try {
            a.release();
        } catch (RuntimeException | Error e) {
            outcome = "failed " + e;
        }
        for (FileInputStream f : used) {
            f.close();
        }
        System.out.println(outcome + " (after " + used.size() + " more descriptors)");
        System.out.flush();
        in.readLine();
    }
}
