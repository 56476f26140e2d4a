package dev.sharray.cli.ec;

import dev.sharray.cli.CliException;
import dev.sharray.cli.ErrorMessages;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

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
     * Refuses an output path that is a shard file of the set being read, by name or through a link: the inputs
     * are never overwritten, even with --force.
     *
     * @param output a file about to be written (renamed into place over its directory entry)
     * @param set    the scanned set being read
     * @throws CliException when {@code output} would replace a shard
     */
    public static void requireNotAShard(Path output, ShardSet set) {
        Path shardDir = set.dir();
        Path parent = output.toAbsolutePath().normalize().getParent();
        boolean inDir;
        try {
            inDir = parent != null && Files.isDirectory(parent) && Files.isSameFile(parent, shardDir);
        } catch (IOException e) {
            inDir = false;
        }
        if (inDir && ShardFiles.NAME.matcher(output.getFileName().toString()).matches()) {
            throw new CliException("output " + output + " is a shard file of " + shardDir + ": the input is never overwritten");
        }
        for (ShardEntry e : set.entries()) {
            if (holds(output, e.path())) { // d/shard-02.sre -> ../out: the rename would replace shard 2's data
                throw new CliException("output " + output + " is a shard file of " + shardDir + " (" + e.path()
                    + " links to it): the input is never overwritten");
            }
        }
    }

    /**
     * Refuses to encode a file into the folder holding it under a shard name (directly or through a link): the
     * encode replaces shard-NN.sre files and, with --force, removes the ones beyond the new set.
     *
     * @param input  the file to encode
     * @param outDir the shard folder about to be written (need not exist)
     * @throws CliException when writing {@code outDir} would replace or remove {@code input}
     */
    public static void requireNotReplacedBy(Path input, Path outDir) {
        if (!Files.isDirectory(outDir)) {
            return; // created by the encode: nothing in it yet
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(outDir)) {
            for (Path p : ds) {
                if (ShardFiles.NAME.matcher(p.getFileName().toString()).matches() && holds(p, input)) {
                    throw new CliException("input " + input + " is a shard file of " + outDir + " (" + p + "): "
                        + "encoding into that folder would replace or remove it");
                }
            }
        } catch (IOException e) {
            throw new CliException("cannot read output directory " + outDir + ": " + ErrorMessages.reason(e), e);
        }
    }

    /**
     * Whether renaming over or deleting {@code entry} would lose the data of {@code file}: the entry itself (not
     * what it links to, since a rename replaces a link, not its target) is the file {@code file} resolves to.
     * A missing path holds nothing.
     */
    static boolean holds(Path entry, Path file) {
        try {
            Object own = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            Object data = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            if (own != null && data != null) {
                return own.equals(data);
            }
            return !Files.isSymbolicLink(entry) && entry.toRealPath().equals(file.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * @param output a file about to be written
     * @param force  whether an existing file may be replaced
     * @throws CliException when it is a directory or another non-regular file (a FIFO, a device, a link to one),
     *                      exists without force, or its folder is missing or not a folder
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
            throw new CliException((Files.exists(parent) ? "not a directory: " : "no such directory: ") + parent);
        }
    }
}
