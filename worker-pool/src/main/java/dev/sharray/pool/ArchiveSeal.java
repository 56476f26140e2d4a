package dev.sharray.pool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * The checksum of a worker class-data archive, written beside it and checked before any worker maps it. A JVM maps
 * an archive's classes as they are: damaged bytes (a disk error, a file changed by hand) crashed workers at start, or
 * worse after it, in whichever task first used a damaged class, in every pool until someone deleted the file.
 * {@code -XX:+VerifySharedSpaces} would catch that in each worker, at 5–20 ms of every start (it checks the JDK's own
 * archive too); the parent checks ours once per JVM and file instead: measured on a JVM's first pool, ~4 ms for
 * JDK 17's 4 MB archive and ~7.5 ms for JDK 25's 15 MB one; a later pool's check is one {@code stat}.
 *
 * <p>The seal file {@code <archive>.crc32c} holds the archive's size and CRC-32C. It is written before the archive is
 * renamed into place, so an archive without a seal is one whose sealing did not finish, and is not used.
 *
 * <p>Not for direct use: {@link #main} seals the static archive a background JVM dumped (see {@link ClassDataArchive}).
 */
public final class ArchiveSeal {
    /** Appended to an archive's file name to name its seal. */
    static final String SUFFIX = ".crc32c";
    /** The archives this JVM found intact, by path: the file's identity then (device and inode, size, time). */
    private static final Map<Path, String> VERIFIED = new ConcurrentHashMap<>();

    private ArchiveSeal() {
    }

    /**
     * Seals a freshly dumped archive and renames it into place; exits with status 1 when that fails.
     *
     * @param args the dumped file, the archive's final path
     */
    public static void main(String[] args) {
        try {
            seal(Path.of(args[0]), Path.of(args[1]));
        } catch (IOException | RuntimeException e) {
            System.exit(1);
        }
    }

    /** @return the seal file of {@code archive} */
    static Path sealOf(Path archive) {
        return archive.resolveSibling(archive.getFileName() + SUFFIX);
    }

    /**
     * Writes the seal of {@code written}, then renames it to {@code archive}, both atomically.
     *
     * @param written a complete archive under a temporary name, in {@code archive}'s folder
     * @param archive where workers look for it
     * @throws IOException when either file cannot be written or renamed
     */
    static void seal(Path written, Path archive) throws IOException {
        final String seal = Files.size(written) + " " + Long.toHexString(checksum(written)) + "\n";
        final Path sealFile = sealOf(archive);
        final Path tmp = CacheFiles.writingName(sealFile);
        try {
            Files.writeString(tmp, seal, StandardCharsets.US_ASCII);
            Files.move(tmp, sealFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Whether {@code archive} has its seal and every byte matches it. Checked once per JVM and file: a file replaced or
     * modified since is checked again.
     *
     * @param archive an archive in a safe folder
     * @return false when it or its seal is missing, unreadable or malformed, or they differ
     */
    static boolean isIntact(Path archive) {
        try {
            final BasicFileAttributes attributes = Files.readAttributes(archive, BasicFileAttributes.class);
            // a string, not a record: a record's equals bootstraps method handles, ~15 ms in a fresh JVM
            final String identity = attributes.fileKey() + " " + attributes.size() + " "
                + attributes.lastModifiedTime().toMillis();
            if (identity.equals(VERIFIED.get(archive))) {
                return true;
            }
            final Path sealFile = sealOf(archive);
            if (Files.size(sealFile) > 64) {
                return false;
            }
            final String expected = Files.readString(sealFile, StandardCharsets.US_ASCII);
            if (!expected.equals(attributes.size() + " " + Long.toHexString(checksum(archive)) + "\n")) {
                return false;
            }
            VERIFIED.put(archive, identity);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static long checksum(Path file) throws IOException {
        final CRC32C crc = new CRC32C();
        final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20); // read without a copy into the heap
        try (FileChannel ch = FileChannel.open(file)) {
            while (ch.read(buffer) >= 0) {
                buffer.flip();
                crc.update(buffer);
                buffer.clear();
            }
        }
        return crc.getValue();
    }
}
