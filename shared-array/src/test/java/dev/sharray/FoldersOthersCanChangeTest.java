package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A folder another user can change lets them swap what a path names between sharray's check and its use. A root
 * writable by others without the sticky bit (a Kubernetes {@code emptyDir}) let another user rename this user's
 * folder and put their own in its place: this process then made its arrays and its pool's worker argument files
 * there (the reviewer ran their own code in a worker that way). In an allowed folder, a directory of theirs on the
 * path let them swap it for a link to this user's files: a descriptor then mapped those read-write; and their file
 * in the layout of this user's arrays was counted as this user's, and deleted at its last release. Giving files to
 * another uid needs root, as CI runs.
 */
class FoldersOthersCanChangeTest {
    private static final int OTHER_UID = 4242;
    @TempDir
    Path temp;

    @Test
    void aRootOthersCanWriteWithoutTheStickyBitIsRefusedAndAStickyOneUsed() throws Exception {
        requireRoot();
        final Path root = Files.createDirectory(temp.resolve("open-root"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
        final UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> SharedArray.builder(DType.FLOAT64, 4).folder(root).create());
        assertTrue(e.getMessage().contains("is writable by other users without the sticky bit (mode 777)"), e.getMessage());
        try (var files = Files.list(root)) {
            assertEquals(List.of(), files.toList(), "nothing was made under it");
        }
        Files.setAttribute(root, "unix:mode", 01777); // as /tmp
        assertEquals(01777, (Integer) Files.getAttribute(root, "unix:mode") & 07777);
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, 4).folder(root).create()) {
            assertTrue(a.path().startsWith(root.toRealPath()), a.path().toString());
        }
    }

    /** /dev/shm as such a root, or with a folder another user made under this user's name: java.io.tmpdir instead. */
    @Test
    void aDefaultRootOthersCanChangeOrLockIsPassedOver() throws Exception {
        requireRoot();
        final Path root = Files.createDirectory(temp.resolve("shm"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertFalse(TempFolders.isUsableDefaultRoot(root), "an emptyDir's mode");
        Files.setAttribute(root, "unix:mode", 01777);
        assertTrue(TempFolders.isUsableDefaultRoot(root));
        final Path squatted = Files.createDirectory(root.resolve(TempFolders.userFolderName()));
        Files.setAttribute(squatted, "unix:uid", OTHER_UID);
        assertFalse(TempFolders.isUsableDefaultRoot(root), "locked out by another user's folder");
        Files.setAttribute(squatted, "unix:uid", 0);
        assertTrue(TempFolders.isUsableDefaultRoot(root));
    }

    @Test
    void aDescriptorUnderARootOthersCanWriteIsRefusedByAnotherProcess() throws Exception {
        requireRoot();
        final Path root = Files.createDirectory(temp.resolve("root"));
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, 4).folder(root).create();
             ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
            child.expect("ready");
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
            child.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String answer = child.readLine();
            assertTrue(answer.contains("writable by other users without the sticky bit"), answer);
        }
    }

    @Test
    void anAllowedFileBehindAnotherUsersFolderIsRefused() throws Exception {
        requireRoot();
        final Path allowed = Files.createDirectory(temp.resolve("allowed"));
        final Path theirs = Files.createDirectory(allowed.resolve("theirs"));
        final Descriptor d = descriptorOfACopyIn(theirs.resolve("x.npy"));
        SharedArrays.allowFolder(allowed);
        try (SharedArray ok = SharedArray.open(d)) {
            assertEquals(4, ok.size());
        }
        Files.setAttribute(theirs, "unix:uid", OTHER_UID); // they could swap it for a link to our files
        final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
        assertEquals("path", e.field());
        assertTrue(e.getMessage().contains(theirs.toRealPath() + " belongs to uid " + OTHER_UID), e.getMessage());
        Files.setAttribute(theirs, "unix:uid", 0);
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwxrwxrwx"));
        final InvalidDescriptorException open = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
        assertTrue(open.getMessage().contains("without the sticky bit"), open.getMessage());
    }

    @Test
    void anotherUsersFileInAStickyAllowedFolderIsRefusedAndOursOpens() throws Exception {
        requireRoot();
        final Path allowed = Files.createDirectory(temp.resolve("sticky"));
        Files.setAttribute(allowed, "unix:mode", 01777); // as /tmp
        final Path file = allowed.resolve("x.npy");
        final Descriptor d = descriptorOfACopyIn(file);
        SharedArrays.allowFolder(allowed);
        try (SharedArray ours = SharedArray.open(d)) {
            assertEquals(4, ours.size());
        }
        Files.setAttribute(file, "unix:uid", OTHER_UID); // in a sticky folder its owner may still replace it
        final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
        assertTrue(e.getMessage().contains(file.toRealPath() + " belongs to uid " + OTHER_UID + ", another user, in a"
            + " folder others can write"), e.getMessage());
    }

    /** The reviewer's case: their pair in our layout was counted as ours, and our last release deleted it. */
    @Test
    void anotherUsersFilesInTheLayoutOfOurArraysAreNeitherCountedNorDeleted() throws Exception {
        requireRoot();
        final Path allowed = Files.createDirectory(temp.resolve("layout"));
        final Path userDir = Files.createDirectory(allowed.resolve(TempFolders.userFolderName()));
        final Path owner = Files.createDirectory(userDir.resolve("host-1-t1-aaaaaaaa"));
        final Path data = owner.resolve("x.npy");
        final Descriptor d;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4)) {
            Files.copy(a.path(), data);
            Files.copy(a.path().resolveSibling(a.path().getFileName().toString().replace(".npy", ".ref")),
                owner.resolve("x.ref"));
            d = new Descriptor(data, a.descriptor().offset(), new long[] {4}, new long[] {8}, DType.FLOAT64,
                java.nio.ByteOrder.LITTLE_ENDIAN);
        }
        Files.setAttribute(userDir, "unix:uid", OTHER_UID);
        Files.setAttribute(owner, "unix:uid", OTHER_UID);
        SharedArrays.allowFolder(allowed);
        final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
        assertTrue(e.getMessage().contains("belongs to uid " + OTHER_UID), e.getMessage());
        assertTrue(Files.exists(data) && Files.exists(owner.resolve("x.ref")), "their files were deleted");
        // opened by its path, it is a plain file of theirs: released, it stays
        SharedArray.openNpy(data).close();
        assertTrue(Files.exists(data) && Files.exists(owner.resolve("x.ref")), "their files were deleted");
    }

    /**
     * A root whose group may write is refused, whatever the group: a group named like the user (umask 002's private
     * group) was taken for the user's own, but another group may share its gid, another user may be a member, and
     * with a POSIX ACL the group bits are the mask of named users' rights (the security re-reviews ran code in the
     * victim's worker through each).
     */
    @Test
    void aRootItsGroupMayWriteIsRefused() throws Exception {
        requireRoot();
        for (int gid : new int[] {OTHER_UID, 0}) { // another group, and this user's own
            final Path root = Files.createDirectory(temp.resolve("group-root-" + gid));
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxr-x"));
            Files.setAttribute(root, "unix:gid", gid);
            final UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> SharedArray.builder(DType.FLOAT64, 4).folder(root).create());
            assertTrue(e.getMessage().contains("is writable by other users without the sticky bit (mode 775)"),
                e.getMessage());
        }
    }

    /** The reaper, ls and clean deleted and listed by path under a root that create and open refuse. */
    @Test
    void theReaperLeavesAFolderUnderARootOthersCanChange() throws Exception {
        requireRoot();
        final Path root = Files.createDirectory(temp.resolve("reaped-root"));
        final Path dead = Files.createDirectories(root.resolve(TempFolders.userFolderName()).resolve("host-1-t1-aaaaaaaa"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
        TempFoldersTest.reapUnder(root);
        assertTrue(Files.exists(dead), "a dead owner's folder was removed under a root others can change");
    }

    /** A hard link to a file of ours, which another user could make in a sticky folder, is ours by its owner. */
    @Test
    void aFileWithAnotherNameInAStickyAllowedFolderIsRefused() throws Exception {
        requireRoot();
        final Path allowed = Files.createDirectory(temp.resolve("sticky-links"));
        Files.setAttribute(allowed, "unix:mode", 01777);
        final Path file = allowed.resolve("x.npy");
        final Descriptor d = descriptorOfACopyIn(file);
        SharedArrays.allowFolder(allowed);
        Files.createLink(temp.resolve("elsewhere.npy"), file);
        final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
        assertTrue(e.getMessage().contains("has 2 names (hard links)"), e.getMessage());
    }

    /**
     * The process folder was trusted by its path for the JVM's life: one put in its place (the reviews did it through
     * roots they could rename entries of) got this process's arrays and its pool's worker files. Its identity is now
     * checked before each use.
     */
    @Test
    void aProcessFolderPutInPlaceOfOursIsRefused() throws Exception {
        final Path root = Files.createDirectory(temp.resolve("replaced"));
        final Path folder;
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, 4).folder(root).create()) {
            folder = a.path().getParent();
        }
        Files.move(folder, folder.resolveSibling("moved-away"));
        Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> SharedArray.builder(DType.FLOAT64, 4).folder(root).create());
        assertTrue(e.getMessage().contains("is not the one this process made"), e.getMessage());
        try (var files = Files.list(folder)) {
            assertEquals(List.of(), files.toList(), "nothing was made in the folder put in its place");
        }
    }

    /** @return the descriptor of a copy of a fresh array's file at {@code file} (a user's own .npy) */
    private static Descriptor descriptorOfACopyIn(Path file) throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4)) {
            Files.copy(a.path(), file);
        }
        try (SharedArray mine = SharedArray.openNpy(file)) {
            return mine.descriptor();
        }
    }

    private static void requireRoot() throws Exception {
        assertEquals(0, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
            "giving a folder to another uid needs root (CI runs as root, as the disk-full tests do)");
        assertFalse(Files.isSymbolicLink(Path.of("/tmp")));
    }
}
