package dev.sharray.cli.ec;

import dev.sharray.cli.CliException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Checks on user-supplied paths, each failing with one clear line. */
public final class Inputs {
    private Inputs() {
    }

    /**
     * @param file a path that must be a readable regular file
     * @throws CliException otherwise
     */
    public static void requireReadableFile(Path file) {
        if (!Files.exists(file)) {
            throw new CliException("no such file: " + file);
        }
        if (Files.isDirectory(file)) {
            throw new CliException("is a directory, expected a file: " + file);
        }
        if (!Files.isRegularFile(file)) {
            throw new CliException("not a regular file: " + file);
        }
        if (!Files.isReadable(file)) {
            throw new CliException("permission denied: " + file);
        }
    }

    /**
     * Refuses an output path that is a shard file of {@code shardDir}: the inputs are never overwritten,
     * even with --force.
     *
     * @param output   a file about to be written
     * @param shardDir the shard folder being read
     * @throws CliException when {@code output} would replace a shard
     */
    public static void requireNotAShard(Path output, Path shardDir) {
        Path parent = output.toAbsolutePath().normalize().getParent();
        boolean inDir;
        try {
            inDir = parent != null && Files.isDirectory(parent) && Files.isSameFile(parent, shardDir);
        } catch (java.io.IOException e) {
            inDir = false;
        }
        if (inDir && ShardFiles.NAME.matcher(output.getFileName().toString()).matches()) {
            throw new CliException("output " + output + " is a shard file of " + shardDir + ": the input is never overwritten");
        }
    }

    /**
     * @param output a file about to be written
     * @param force  whether an existing file may be replaced
     * @throws CliException when it is a directory or another non-regular file (a FIFO, a device, a link to one),
     *                      exists without force, or its folder is missing
     */
    public static void requireWritableOutput(Path output, boolean force) {
        if (Files.isDirectory(output)) {
            throw new CliException("output is a directory: " + output);
        }
        // The output is renamed into place: with --force, /dev/null or a FIFO would be replaced by a regular file
        // (as root, /dev/null itself), never written to. Only a regular file (or a link to one) is replaced.
        if (Files.exists(output) && !Files.isRegularFile(output)) {
            throw new CliException("output is not a regular file: " + output
                + " (a FIFO, device or socket is never replaced; write to a file)");
        }
        // a dangling symbolic link does not "exist" (exists() follows it), but it is an entry the rename replaces
        if ((Files.exists(output) || Files.isSymbolicLink(output)) && !force) {
            throw new CliException("output exists: " + output + " (use --force to overwrite)");
        }
        Path parent = output.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new CliException("no such directory: " + parent);
        }
    }
}
