package dev.sharray;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A child JVM for {@link OutOfDescriptorsTest}: takes every file descriptor it may open, then creates an array.
 * Prints {@code "create <exception>"} (or {@code "create ok"}), then, with its descriptors back, {@code "files N"} (what
 * the failed create left in its folder) and {@code "created"} once a create works.
 */
public final class FdStarvedCreate {
    private FdStarvedCreate() {
    }

    public static void main(String[] args) throws Exception {
        final SharedArray first = SharedArray.create(DType.FLOAT64, 10); // folder made, reaper run
        final List<FileInputStream> taken = new ArrayList<>();
        // the JVM may close a descriptor of its own between the grab and the create (a cleaner, a class path jar),
        // which lets the create through: grab again and retry, a few times, before reporting a create that worked
        String outcome = "ok";
        for (int attempt = 0; attempt < 5 && outcome.equals("ok"); attempt++) {
            takeEveryDescriptor(taken);
            SharedArray made = null;
            try {
                made = SharedArray.create(DType.FLOAT64, 10);
            } catch (RuntimeException e) {
                outcome = e.toString();
            }
            if (made != null) {
                // descriptors back first: this process's first release loads classes, and a class load opens a file
                giveBack(taken);
                made.close();
            }
        }
        System.out.println("create " + outcome);
        giveBack(taken);
        try (Stream<Path> files = Files.list(SharedArrays.processFolder())) {
            System.out.println("files " + files.count());
        }
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 10)) {
            System.out.println("created");
        }
        first.release();
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
