package dev.sharray;

import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A child JVM for {@link ExitRegistriesTest}: holds an array until it exits, registers one entry the exit cannot
 * handle, prints its folder and exits once its stdin is closed.
 */
public final class ExitRegistriesChild {
    private ExitRegistriesChild() {
    }

    /** @param args "undeletable-file" (a path of a closed zip file system) or "failing-action" (an AssertionError) */
    public static void main(String[] args) throws Exception {
        final SharedArray held = SharedArray.create(DType.FLOAT64, 1000); // released by the exit hook
        if (args[0].equals("undeletable-file")) {
            final Path zip = SharedArrays.processFolder().resolve("x.zip");
            final Path inZip;
            try (FileSystem fs = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
                inZip = fs.getPath("/entry");
                Files.write(inZip, new byte[1]);
            }
            Files.delete(zip);
            SharedArrays.deleteAtExit(inZip); // its deletion throws ClosedFileSystemException, not an IOException
        } else {
            SharedArrays.runAtExit(() -> {
                throw new AssertionError("an action that fails at exit");
            });
        }
        System.out.println("folder " + held.path().getParent());
        System.out.flush();
        while (System.in.read() >= 0) { // until the test closes stdin: it looks at the folder first
            continue;
        }
    }
}
