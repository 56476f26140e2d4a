package dev.sharray;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A child JVM for {@link OutOfDescriptorsTest}: takes every file descriptor it may open, then creates an array and
 * releases the one it made before (its first release: nothing of the release path was loaded or made yet). Prints
 * {@code "create <exception>"} (or {@code "create ok"}), {@code "release ok"} (or the exception, or that the file
 * was left), then, with its descriptors back, {@code "files N"} (what the failed create and the release left in its
 * folder), {@code "created"} once a create works, and whether released ranges are now reserved.
 */
public final class FdStarvedCreate {
    private FdStarvedCreate() {
    }

    public static void main(String[] args) throws Exception {
        final SharedArray first = SharedArray.create(DType.FLOAT64, 10); // folder made, reaper run
        final Path firstFile = first.path();
        final List<FileInputStream> taken = new ArrayList<>();
        // the JVM may close a descriptor of its own between the grab and the create (a cleaner, a class path jar),
        // which lets the create through: grab again and retry, a few times, before reporting a create that worked
        String outcome = "ok";
        for (int attempt = 0; attempt < 5 && outcome.equals("ok"); attempt++) {
            takeEveryDescriptor(taken);
            try {
                SharedArray.create(DType.FLOAT64, 10).close();
            } catch (RuntimeException e) {
                outcome = e.toString();
            }
        }
        String released = "ok";
        try {
            first.release();
            if (Files.exists(firstFile)) {
                released = "left its file";
            }
        } catch (RuntimeException | Error e) {
            released = e.toString();
        }
        giveBack(taken);
        System.out.println("create " + outcome);
        System.out.println("release " + released);
        try (Stream<Path> files = Files.list(SharedArrays.processFolder())) {
            System.out.println("files " + files.count());
        }
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 10)) {
            System.out.println("created");
        }
        // the empty memory file that released ranges are mapped to: made now if the starved release could not
        System.out.println("reserving " + ReleasedRanges.reserving());
    }

    private static void giveBack(List<FileInputStream> taken) throws IOException {
        for (FileInputStream in : taken) {
            in.close();
        }
        taken.clear();
    }

    private static void takeEveryDescriptor(List<FileInputStream> taken) {
        try {
            while (true) {
                taken.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException e) {
            // out of descriptors (EMFILE)
        }
    }
}
