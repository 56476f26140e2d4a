package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-user folder under a shared root is used only when it is a real directory owned by this process's
 * user: a symbolic link or another user's folder planted there is refused, and nothing is written into it.
 */
class TempFoldersTest {
    @TempDir
    Path temp;

    /** The grammar of owner folder names as a regular expression: the reference the hand-written parser must match. */
    private static final Pattern OWNER_FOLDER = Pattern.compile("(.+)-(\\d+)-t(\\d+)-([0-9a-f]{8})");

    @Test
    void ownerFolderNamesParseAsTheirGrammarSays() {
        String real = TempFolders.ownerFolder(temp).getFileName().toString();
        assertArrayEquals(new long[] {ProcessIdentity.PID, ProcessIdentity.START}, TempFolders.parseOwner(real), real);
        List<String> edges = List.of("", "-1-t2-abcdef12", "h-1-t2-abcdef12", "h-1-t2-abcdef1", "h-1-t2-abcdef123",
            "h-1-t2-ABCDEF12", "h-1-t-abcdef12", "h--t2-abcdef12", "h-1-2-abcdef12", "h-1t2-abcdef12",
            "a-1-t2-3-t4-abcdef12", "h-99999999999999999999-t2-abcdef12", "h-1-t2abcdef12", "h-1-t2--bcdef12",
            "-h-1-t2-00000000", "h-x1-t2-abcdef12", "h-1-t2x-abcdef12", "--1-t2-abcdef12", "h-+1-t2-abcdef12");
        for (String name : edges) {
            assertArrayEquals(byRegex(name), TempFolders.parseOwner(name), name);
        }
        Random random = new Random(11);
        String alphabet = "-t0123456789abcdefxT+";
        int matched = 0;
        for (int n = 0; n < 200_000; n++) {
            StringBuilder b = new StringBuilder();
            int length = random.nextInt(28);
            for (int i = 0; i < length; i++) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            if (random.nextBoolean()) { // names close to the grammar, not only noise
                b.append('-').append(random.nextInt(1000)).append(random.nextBoolean() ? "-t" : "-")
                    .append(random.nextInt(100)).append('-').append(Integer.toHexString(random.nextInt()));
            }
            String name = b.toString();
            long[] expected = byRegex(name);
            assertArrayEquals(expected, TempFolders.parseOwner(name), name);
            matched += expected == null ? 0 : 1;
        }
        assertTrue(matched > 10_000, "too few names of the grammar to compare: " + matched);
    }

    @Test
    void anOwnerFolderNameRecordsThePidNamespaceOfAContainerAndNoneOnTheHost() throws Exception {
        final long self = ProcessIdentity.PID_NAMESPACE;
        final boolean host = self == 0 || self == ProcessIdentity.INIT_PID_NAMESPACE;
        String real = TempFolders.ownerFolder(temp).getFileName().toString();
        assertEquals(host ? 0 : self, TempFolders.pidNamespaceOf(real), real);
        assertFalse(TempFolders.inOtherPidNamespace(real), real);
        for (String name : List.of("h-1-t2-abcdef12", "h-n-1-t2-abcdef12", "-n5-1-t2-abcdef12", "hn5-1-t2-abcdef12",
                "h-n5-1-t2-abcdeg12", "h-n99999999999999999999-1-t2-abcdef12")) {
            assertEquals(0, TempFolders.pidNamespaceOf(name), name); // none recorded: the host's (or an older build's)
            assertEquals(!host, TempFolders.inOtherPidNamespace(name), name);
        }
        assertEquals(5, TempFolders.pidNamespaceOf("h-n5-1-t2-abcdef12"));
        assertArrayEquals(new long[] {1, 2}, TempFolders.parseOwner("h-n5-1-t2-abcdef12"), "older builds' reading");
        assertEquals(self != 0, TempFolders.inOtherPidNamespace("h-n" + (self + 1) + "-1-t2-abcdef12"));
        assertEquals(0, ProcessIdentity.PID_NAMESPACE == 0 ? 0 : Files.readSymbolicLink(Path.of("/proc/self/ns/pid"))
            .toString().compareTo("pid:[" + self + "]"), "the namespace is the one /proc/self/ns/pid names");
    }

    @Test
    void aCreateAfterSomethingElseRemovedThisProcesssFolderMakesItAgain() throws Exception {
        try (SharedArray first = SharedArray.builder(DType.FLOAT64, 4).folder(temp).create()) {
            final Path folder = first.path().getParent();
            Reaper.deleteTree(folder.getParent()); // a tmp cleaner, or rm -rf of the sharray-<user> folder
            // before: InsufficientSpaceException "... 0 bytes are free", for every create of this process from then on
            try (SharedArray second = SharedArray.builder(DType.FLOAT64, 4).folder(temp).create()) {
                assertEquals(folder, second.path().getParent());
                second.setDouble(2, 1);
                assertEquals(2.0, second.getDouble(1));
                assertEquals(TempFolders.DIR_MODE, Files.getPosixFilePermissions(folder));
                assertEquals(TempFolders.DIR_MODE, Files.getPosixFilePermissions(folder.getParent()));
            }
        }
    }

    private static long[] byRegex(String name) {
        Matcher m = OWNER_FOLDER.matcher(name);
        if (!m.matches()) {
            return null;
        }
        try {
            return new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Test
    void aSymbolicLinkInPlaceOfTheUserFolderIsRefused() throws Exception {
        Path root = Files.createDirectory(temp.resolve("root-link"));
        Path elsewhere = Files.createDirectory(temp.resolve("elsewhere"));
        Files.createSymbolicLink(root.resolve(TempFolders.userFolderName()), elsewhere);
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> SharedArray.builder(DType.FLOAT64, 4).folder(root).create());
        assertTrue(e.getMessage().contains("is not a directory"), e.getMessage());
        assertEquals(List.of(), list(elsewhere), "nothing was created through the link");
    }

    @Test
    void aRootThatCannotHoldFoldersIsRefusedWithTheReasonNotThePathAgain() throws Exception {
        Path file = Files.createFile(temp.resolve("a-file"));
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> SharedArray.builder(DType.FLOAT64, 4).folder(file).create());
        // before: "cannot create the sharray folder under <file>: <file>"
        assertTrue(e.getMessage().endsWith(": " + file + " exists and is not a directory"), e.getMessage());
        e = assertThrows(UncheckedIOException.class, () -> SharedArray.builder(DType.FLOAT64, 4).folder(Path.of("/proc")).create());
        assertTrue(e.getMessage().endsWith(": /proc/" + TempFolders.userFolderName()
            + " cannot be created there (no such file or directory)"), e.getMessage());
        assertTrue(Files.isRegularFile(file), "the file is left as it was");
    }

    /**
     * A uid without a passwd entry (a container run with an arbitrary uid) has user.name "?". Every such uid
     * used to get the folder sharray-_, so the first one's folder refused all the others ("belongs to uid
     * ...") and they could not create arrays at all: such a uid's folder is named by the uid. Runs as any user.
     */
    @Test
    void aUidWithoutANameGetsAFolderOfItsOwn() throws Exception {
        Path root = Files.createDirectory(temp.resolve("nameless"));
        try (ChildJvm child = ChildJvm.start(CreateOne.class, List.of("-Duser.name=?", "-Dsharray.tempFolder=" + root))) {
            String line = child.readLine();
            assertTrue(line != null && line.startsWith("created "), line);
            Path created = Path.of(line.substring("created ".length()));
            assertEquals(root.toRealPath().resolve("sharray-uid" + myUid()), created.getParent().getParent(), line);
        }
        assertEquals("sharray-uid7", TempFolders.userFolderName("?").replaceAll("\\d+$", "7"));
        assertEquals("sharray-alice", TempFolders.userFolderName("alice"));
        assertEquals("sharray-a_b", TempFolders.userFolderName("a b"));
    }

    /** Child side: creates one array in the default root and prints its path. */
    public static final class CreateOne {
        public static void main(String[] args) {
            try (SharedArray a = SharedArray.create(DType.FLOAT64, 4)) {
                System.out.println("created " + a.path());
            } catch (RuntimeException e) {
                System.out.println("failed: " + e);
            }
        }
    }

    /** A root holding this user's sharray-&lt;user&gt; folder; giving it to another uid later needs root. */
    private Path userFolderUnder(String rootName) throws Exception {
        assertEquals(0, myUid(), "giving a folder to another uid needs root (CI runs as root, as the disk-full tests do)");
        Path root = Files.createDirectory(temp.resolve(rootName));
        return Files.createDirectory(root.resolve(TempFolders.userFolderName()));
    }

    private static int myUid() throws Exception {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    @Test
    void anotherUsersFolderIsRefused() throws Exception {
        Path userDir = userFolderUnder("root-owner");
        Path root = userDir.getParent();
        Files.setAttribute(userDir, "unix:uid", 4321);
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> SharedArray.builder(DType.FLOAT64, 4).folder(root).create());
        assertTrue(e.getMessage().contains("belongs to uid 4321"), e.getMessage());
        assertEquals(List.of(), list(userDir), "nothing was created in the other user's folder");
        Files.setAttribute(userDir, "unix:uid", myUid());
        try (SharedArray ok = SharedArray.builder(DType.FLOAT64, 4).folder(root).create()) {
            assertTrue(ok.path().startsWith(userDir.toRealPath()), ok.path().toString());
        }
    }

    @Test
    void aDescriptorIntoAnotherUsersSharrayFolderIsRefusedBeforeMapping() throws Exception {
        // the layout of a sharray folder (.../sharray-<user>/<owner>/<name>.npy), planted by someone else
        Path userDir = userFolderUnder("planted");
        Path owner = Files.createDirectory(userDir.resolve("host-1-t1-0000abcd"));
        Path file = owner.resolve("a1-deadbeef.npy");
        byte[] header = NpyHeader.encode(DType.FLOAT64, new long[] {4});
        Files.write(file, java.util.Arrays.copyOf(header, header.length + 32));
        Descriptor d = new Descriptor(file, header.length, new long[] {4}, new long[] {8}, DType.FLOAT64,
            java.nio.ByteOrder.LITTLE_ENDIAN);
        Files.setAttribute(userDir, "unix:uid", 4321);
        // before: mapped read-write, a file its owner can truncate under us or fill as they like
        InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
        assertEquals("path", e.field());
        assertTrue(e.getMessage().contains("belongs to uid 4321"), e.getMessage());
        Path real = file.toRealPath();
        assertTrue(Segments.snapshot().stream().noneMatch(s -> s.dataPath.equals(real)), "nothing was mapped");
        // the same folder owned by this user is a sharray folder like any other
        Files.setAttribute(userDir, "unix:uid", myUid());
        try (SharedArray a = SharedArray.open(d)) {
            assertEquals(4, a.size());
        }
        assertTrue(Files.exists(file), "a file without a refcount file is never deleted");
    }

    @Test
    void theReaperLeavesAnotherUsersFolderAndAFolderReachedThroughALinkAlone() throws Exception {
        // a dead owner's folder (pid 1 did not start at tick 1) holding a file, in a sharray-<user> folder that
        // is another user's, and in one that is a link to a folder of anything at all
        Path userDir = userFolderUnder("reap-other");
        Path planted = Files.createDirectory(userDir.resolve("host-1-t1-0000abcd")).resolve("notes.txt");
        Files.writeString(planted, "not the reaper's");
        Files.setAttribute(userDir, "unix:uid", 4321);
        Path linkRoot = Files.createDirectory(temp.resolve("reap-link"));
        Path victim = Files.createDirectory(temp.resolve("victim"));
        Path victimFile = Files.createDirectory(victim.resolve("build-1-t1-0badf00d")).resolve("results.csv");
        Files.writeString(victimFile, "1,2,3");
        Files.createSymbolicLink(linkRoot.resolve(TempFolders.userFolderName()), victim);
        reapUnder(linkRoot);
        reapUnder(userDir.getParent());
        // before: both folders and their files were deleted
        assertTrue(Files.exists(victimFile), "the reaper did not follow the link");
        assertTrue(Files.exists(planted), "the reaper did not work in another user's folder");
        // the same folder as this user's is reaped: what was planted there is a dead owner's folder
        Files.setAttribute(userDir, "unix:uid", myUid());
        reapUnder(userDir.getParent());
        assertTrue(Files.notExists(planted.getParent()), "a dead owner's folder of this user is reaped");
    }

    /**
     * The reaper deletes a folder when its owner is dead and no live process holds an array in it: a live owner's
     * folder stays whether or not it holds arrays now (between two arrays, or while it creates its first).
     */
    @Test
    void theReaperLeavesALiveOwnersFolderThatHoldsNoArray() throws Exception {
        Path userDir = userFolderUnder("reap-live");
        Path live = Files.createDirectory(userDir.resolve("host" + TempFolders.processTag() + "-0000abcd"));
        Path inside = Files.writeString(live.resolve("notes.txt"), "a live owner's");
        Path dead = Files.createDirectory(userDir.resolve("host-1-t1-0000abcd")); // pid 1 did not start at tick 1
        reapUnder(userDir.getParent());
        assertTrue(Files.exists(inside), "a live owner's folder without arrays was reaped");
        assertTrue(Files.notExists(dead), "a dead owner's folder without arrays is reaped");
    }

    /** One reaper pass with {@code root} as the configured root. */
    static void reapUnder(Path root) {
        String before = System.getProperty("sharray.tempFolder");
        System.setProperty("sharray.tempFolder", root.toString());
        try {
            SharedArrays.reap();
        } finally {
            if (before == null) {
                System.clearProperty("sharray.tempFolder");
            } else {
                System.setProperty("sharray.tempFolder", before);
            }
        }
    }

    private static List<Path> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    /**
     * A non-ASCII temp folder in a JVM whose file names are ASCII (LANG=C): the JDK's bare InvalidPathException named
     * neither the setting nor the locale (jvmvariety review 48).
     */
    @Test
    void aTempFolderThisJvmCannotNameSaysWhichSettingAndWhy(@TempDir Path dir) throws Exception {
        // the folder's UTF-8 bytes through an argument file: this JVM's own encoding of a command line does not matter
        final Path options = Files.write(dir.resolve("options"),
            ("-Dsharray.tempFolder=" + dir + "/r\u00f6\u00f6t\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of("@" + options),
                java.util.Map.of("LC_ALL", "C", "LANG", "C"))) {
            child.expect("ready ");
            child.send("create FLOAT64 3");
            final String answer = child.readLine();
            assertTrue(answer.startsWith("error IllegalArgumentException: -Dsharray.tempFolder ")
                && answer.contains("cannot be a file name in this JVM") && answer.contains("LANG=C.UTF-8"), answer);
            assertEquals(0, child.finish());
        }
    }
}
