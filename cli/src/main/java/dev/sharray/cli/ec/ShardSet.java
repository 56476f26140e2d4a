package dev.sharray.cli.ec;

import dev.sharray.cli.CliException;
import dev.sharray.cli.ErrorMessages;
import dev.sharray.cli.Parallel;
import dev.sharray.codec.MemoryFaultException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;

/**
 * The shards of one encoding found in a directory, each classified intact / missing / corrupted / ....
 * When shards of several encodings are mixed, the set with the most valid headers is chosen and the
 * others are reported as foreign. Reading never modifies a file.
 */
public final class ShardSet {
    private final Path dir;
    private final ShardHeader header;
    private final List<ShardEntry> entries;
    private final int foreignSets;
    /**
     * Null, or when another encoding has as many intact shards here as its data shards, so decodes on its own: that
     * set described, for a message ({@link #chosenSet} the chosen one).
     */
    private final String rivalSet;
    private final String chosenSet;
    /** Per index, an intact shard's file state taken before its checksum was checked; null for the others. */
    private final InputState[] intactStates;

    private ShardSet(Path dir, ShardHeader header, List<ShardEntry> entries, int foreignSets, String chosenSet,
                     String rivalSet, InputState[] intactStates) {
        this.dir = dir;
        this.header = header;
        this.entries = entries;
        this.foreignSets = foreignSets;
        this.chosenSet = chosenSet;
        this.rivalSet = rivalSet;
        this.intactStates = intactStates;
    }

    /** @return the shard directory */
    public Path dir() {
        return dir;
    }

    /** @return the set's header (the index field is that of some member) */
    public ShardHeader header() {
        return header;
    }

    /** @return one entry per shard index */
    public List<ShardEntry> entries() {
        return entries;
    }

    /** @return how many other encodings have shards in the directory */
    public int foreignSets() {
        return foreignSets;
    }

    /**
     * Refuses a folder holding shards of two encodings that each decode: the set chosen (most valid headers) is
     * decoded or repaired as if the other's shards were damaged, and a repair overwrites them with rebuilt shards of
     * its own, destroying a set that decoded on its own (ecfuzz review 51). A chosen set that cannot be recovered is
     * left to {@link #requireRecoverable()}, which names the other.
     *
     * @param doing what the caller was about to do ("decode", "repair")
     * @throws CliException naming both sets
     */
    public void requireNoRivalSet(String doing) {
        if (rivalSet != null && recoverable()) {
            throw new CliException("will not " + doing + " " + dir + ": it holds two encodings with enough intact shards"
                + " each to be decoded, " + bothSets() + "; move one set's shard files to a folder of their own, then "
                + doing + " each");
        }
    }

    /** @return null, or another set that decodes on its own here, described (see requireNoRivalSet) */
    public String rivalSet() {
        return rivalSet;
    }

    /** @return the chosen set and the rival, described */
    public String bothSets() {
        return chosenSet + " and " + rivalSet;
    }

    private static String describe(ShardHeader h, List<Integer> indexes) {
        return String.format("set %016x (RS(%d,%d) %s, shards %s)", h.setId(), h.k(), h.m(), h.matrix(), indexes);
    }

    /** @return the shards not intact, by status: "missing 0, 3; corrupted 5" */
    private String damageByStatus() {
        final Map<ShardStatus, List<Integer>> byStatus = new java.util.EnumMap<>(ShardStatus.class);
        for (ShardEntry e : entries) {
            if (!e.intact() && e.status() != ShardStatus.UNCHECKED) {
                byStatus.computeIfAbsent(e.status(), s -> new ArrayList<>()).add(e.index());
            }
        }
        final List<String> parts = new ArrayList<>();
        byStatus.forEach((status, indexes) -> parts.add(status.label() + " " + indexes.stream().map(String::valueOf)
            .collect(java.util.stream.Collectors.joining(", "))));
        return String.join("; ", parts);
    }

    /** @return number of intact shards */
    public int intactCount() {
        return (int) entries.stream().filter(ShardEntry::intact).count();
    }

    /** @return number of shards found missing or damaged (unchecked ones are neither) */
    public int damagedCount() {
        return (int) entries.stream().filter(e -> !e.intact() && e.status() != ShardStatus.UNCHECKED).count();
    }

    /** @return whether at least k shards are intact */
    public boolean recoverable() {
        return intactCount() >= header.k();
    }

    /** @return per index, whether the shard is intact */
    public boolean[] present() {
        boolean[] p = new boolean[entries.size()];
        for (ShardEntry e : entries) {
            p[e.index()] = e.intact();
        }
        return p;
    }

    /**
     * Fails with a clear message unless at least k shards are intact.
     *
     * @throws CliException when the set cannot be decoded
     */
    public void requireRecoverable() {
        if (!recoverable()) {
            String extra = foreignSets > 0 ? " (the directory mixes shards of " + (foreignSets + 1) + " different sets)" : "";
            String rival = rivalSet == null ? "" : "; another encoding here decodes on its own, " + rivalSet
                + ": move its shard files to a folder of their own";
            throw new CliException("cannot recover " + dir + ": only " + intactCount() + " of " + entries.size()
                + " shards are intact, " + header.k() + " are needed" + extra + "; " + damageByStatus()
                + " ('sharray ec verify' on it says why for each)" + rival);
        }
    }

    /**
     * Reads every shard header and checks every body checksum (in parallel).
     *
     * @param dir      the shard directory
     * @param parallel runs the checksums
     * @return the classified set
     * @throws CliException when the directory is unusable or holds no valid shard header
     */
    public static ShardSet scan(Path dir, Parallel parallel) {
        return scan(dir, parallel, false);
    }

    /**
     * Reads every shard header and checks the data shards' body checksums first; the parity bodies are
     * checked only when a data shard is not intact. For decoding: with every data shard intact the parity
     * is never read, and its entries say {@link ShardStatus#UNCHECKED}.
     *
     * @param dir      the shard directory
     * @param parallel runs the checksums
     * @return the classified set
     * @throws CliException when the directory is unusable or holds no valid shard header
     */
    public static ShardSet scanForDecoding(Path dir, Parallel parallel) {
        return scan(dir, parallel, true);
    }

    private static ShardSet scan(Path dir, Parallel parallel, boolean dataFirst) {
        if (!Files.exists(dir)) {
            throw new CliException("no such directory: " + dir);
        }
        if (!Files.isDirectory(dir)) {
            throw new CliException("not a directory: " + dir);
        }
        Map<Integer, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                Matcher m = ShardFiles.NAME.matcher(p.getFileName().toString());
                // only the canonical name of an index (shard-05.sre, not shard-005.sre): two files must not
                // both claim one shard
                if (m.matches() && p.getFileName().equals(ShardFiles.shard(dir, Integer.parseInt(m.group(1))).getFileName())) {
                    files.put(Integer.parseInt(m.group(1)), p);
                }
            }
        } catch (IOException e) {
            throw new CliException("cannot read directory " + dir + ": " + ErrorMessages.reason(e), e);
        }
        if (files.isEmpty()) {
            throw new CliException("no shard files (shard-NN.sre) in " + dir);
        }
        Map<Integer, ShardHeader> headers = new HashMap<>();
        Map<Integer, ShardEntry> bad = new HashMap<>();
        int unsupportedVersion = -1;
        for (Map.Entry<Integer, Path> f : files.entrySet()) {
            int i = f.getKey();
            try {
                headers.put(i, ShardHeader.parse(readHeader(f.getValue())));
            } catch (BadShardException.Version v) {
                unsupportedVersion = v.version();
                bad.put(i, new ShardEntry(i, f.getValue(), ShardStatus.UNSUPPORTED, v.getMessage()));
            } catch (BadShardException b) {
                bad.put(i, new ShardEntry(i, f.getValue(), ShardStatus.CORRUPTED, b.getMessage()));
            } catch (IOException e) {
                bad.put(i, new ShardEntry(i, f.getValue(), ShardStatus.UNREADABLE, "cannot read: " + ErrorMessages.reason(e)));
            }
        }
        ShardHeader ref = chooseSet(headers);
        if (ref == null) {
            if (unsupportedVersion >= 0) {
                throw new CliException("the shards in " + dir + " use format version " + unsupportedVersion
                    + "; this sharray reads version " + ShardHeader.VERSION);
            }
            throw new CliException("no valid shard in " + dir + ": all " + files.size() + " shard files are damaged or"
                + " unreadable (" + firstReasons(bad) + ")");
        }
        int n = ref.k() + ref.m();
        List<ShardEntry> entries = new ArrayList<>(n);
        List<Integer> toCheck = new ArrayList<>();
        java.util.Set<Long> otherSets = new java.util.HashSet<>();
        String rival = null;
        final List<ShardHeader> othersChecked = new ArrayList<>();
        for (ShardHeader h : new TreeMap<>(headers).values()) {
            if (h.sameSet(ref) || othersChecked.stream().anyMatch(h::sameSet)) {
                continue; // each other set once: its members' bodies are read at most once
            }
            othersChecked.add(h);
            otherSets.add(h.setId());
            final List<Integer> members = membersOf(h, headers);
            if (rival == null && members.size() >= h.k()) {
                // enough headers: its bodies decide (read only then, which is rare)
                final List<Integer> intact = new ArrayList<>();
                for (int i : members) {
                    if (checkBody(i, files.get(i), headers.get(i), ShardHeader.SIZE + h.shardLength()).entry().intact()) {
                        intact.add(i);
                    }
                }
                if (intact.size() >= h.k()) {
                    rival = describe(h, intact);
                }
            }
        }
        for (int i = 0; i < n; i++) {
            Path expected = ShardFiles.shard(dir, i);
            Path actual = files.get(i);
            ShardHeader h = headers.get(i);
            if (actual == null) {
                entries.add(new ShardEntry(i, expected, ShardStatus.MISSING, "no file"));
            } else if (bad.containsKey(i)) {
                entries.add(bad.get(i));
            } else if (!h.sameSet(ref)) {
                entries.add(new ShardEntry(i, actual, ShardStatus.FOREIGN,
                    String.format("belongs to another set (id %016x)", h.setId())));
            } else if (h.index() != i) {
                entries.add(new ShardEntry(i, actual, ShardStatus.CORRUPTED, "header says shard " + h.index()));
            } else {
                entries.add(null);
                toCheck.add(i);
            }
        }
        long bodyEnd = ShardHeader.SIZE + ref.shardLength();
        int k = ref.k();
        List<Integer> first = dataFirst ? toCheck.stream().filter(i -> i < k).toList() : toCheck;
        InputState[] states = new InputState[n];
        List<ShardEntry> checked = new ArrayList<>();
        for (Checked c : parallel.map(i -> checkBody(i, files.get(i), headers.get(i), bodyEnd), first)) {
            checked.add(c.entry());
            entries.set(c.entry().index(), c.entry());
            states[c.entry().index()] = c.intactState();
        }
        if (dataFirst) {
            List<Integer> parity = toCheck.stream().filter(i -> i >= k).toList();
            if (checked.size() == k && checked.stream().allMatch(ShardEntry::intact)) {
                for (int i : parity) {
                    entries.set(i, new ShardEntry(i, files.get(i), ShardStatus.UNCHECKED, "not needed: every data shard is intact"));
                }
            } else {
                for (Checked c : parallel.map(i -> checkBody(i, files.get(i), headers.get(i), bodyEnd), parity)) {
                    entries.set(c.entry().index(), c.entry());
                    states[c.entry().index()] = c.intactState();
                }
            }
        }
        return new ShardSet(dir, ref, List.copyOf(entries), otherSets.size(),
            rival == null ? null : describe(ref, membersOf(ref, headers)), rival, states);
    }

    /** A checked shard, and for an intact one the state of its file before the check (else null). */
    private record Checked(ShardEntry entry, InputState intactState) {
        Checked(int i, Path file, ShardStatus status, String detail) {
            this(new ShardEntry(i, file, status, detail), null);
        }
    }

    private static Checked checkBody(int i, Path file, ShardHeader h, long expectedSize) {
        try {
            // before the open and the read: a file put in its place, or written, from here on is told at the commit
            final InputState before = InputState.of(file);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                return checkOpened(i, file, h, expectedSize, ch, before);
            }
        } catch (EOFException | MemoryFaultException e) { // cut short after its size was checked
            return new Checked(i, file, ShardStatus.TRUNCATED, "shrank while it was being read");
        } catch (IOException e) {
            return new Checked(i, file, ShardStatus.UNREADABLE, "cannot read: " + ErrorMessages.reason(e));
        }
    }

    private static Checked checkOpened(int i, Path file, ShardHeader h, long expectedSize, FileChannel ch,
                                       InputState before) throws IOException {
        long size = ch.size();
        if (size != expectedSize) {
            return new Checked(i, file, ShardStatus.TRUNCATED, "size " + size + " bytes, expected " + expectedSize);
        }
        if (bodyCrc(ch, h.shardLength(), expectedSize) != h.bodyCrc()) {
            return new Checked(i, file, ShardStatus.CORRUPTED, "body checksum mismatch");
        }
        return new Checked(new ShardEntry(i, file, ShardStatus.INTACT, ""), before);
    }

    /**
     * The body's checksum through mappings; where a mapping faults though the file kept its size, through read
     * calls: a hole of a sparse shard on a full tmpfs faults when mapped (it was reported "truncated", and an intact
     * set "NOT recoverable"), and reads as zeros.
     */
    private static int bodyCrc(FileChannel ch, long bodyLength, long expectedSize) throws IOException {
        try {
            return Mapped.crc(ch, ShardHeader.SIZE, bodyLength);
        } catch (MemoryFaultException e) {
            if (ch.size() != expectedSize) {
                throw e; // it shrank
            }
            return Mapped.readCrc(ch, ShardHeader.SIZE, bodyLength);
        }
    }

    /**
     * Checks that no intact shard was written to, replaced or cut since the scan checked it. The decode and the
     * repair read the intact shards again after the scan (a kernel copy, or the workers' own mappings), so a shard
     * written to meanwhile would give an output, or a rebuilt shard with a checksum, made of bytes no checksum
     * vouched for. Like the encode's check of its input, this sees writes through the file system's calls, which
     * move a file's times; a write through another process's shared mapping of a tmpfs file moves none.
     *
     * @param doing what the caller does, for the message ("decoding")
     * @throws IOException "shard N (path) changed while decoding (what changed)", or when a shard cannot be read
     */
    public void requireIntactShardsUnchanged(String doing) throws IOException {
        for (ShardEntry e : entries) {
            final InputState before = intactStates[e.index()];
            if (before == null) {
                continue;
            }
            String change;
            try {
                change = before.changeTo(InputState.of(e.path()));
            } catch (java.nio.file.NoSuchFileException gone) {
                change = "it was removed";
            }
            if (change != null) {
                throw new IOException("shard " + e.index() + " (" + e.path() + ") changed while " + doing + " (" + change
                    + "); nothing was written: run it again once the shards are no longer being written");
            }
        }
    }

    /** @return why the first few shard files were refused: "shard-00.sre: header checksum mismatch; ..." */
    private static String firstReasons(Map<Integer, ShardEntry> bad) {
        final List<String> reasons = new ArrayList<>();
        for (ShardEntry e : new TreeMap<>(bad).values()) {
            if (reasons.size() == 3) {
                reasons.add((bad.size() - 3) + " more");
                break;
            }
            reasons.add(e.path().getFileName() + ": " + e.detail());
        }
        return String.join("; ", reasons);
    }

    /** @return the indexes whose files hold a valid header of {@code h}'s set, for their own index */
    private static List<Integer> membersOf(ShardHeader h, Map<Integer, ShardHeader> headers) {
        return new TreeMap<>(headers).entrySet().stream()
            .filter(e -> e.getValue().sameSet(h) && e.getValue().index() == e.getKey()).map(Map.Entry::getKey).toList();
    }

    /** The set with most valid headers; ties go to the set holding the lowest index. */
    private static ShardHeader chooseSet(Map<Integer, ShardHeader> headers) {
        ShardHeader best = null;
        int bestCount = 0;
        for (ShardHeader h : new TreeMap<>(headers).values()) {
            int count = (int) headers.values().stream().filter(h::sameSet).count();
            if (count > bestCount) {
                best = h;
                bestCount = count;
            }
        }
        return best;
    }

    /**
     * @param file a shard file (a link is followed)
     * @return its first {@link ShardHeader#SIZE} bytes
     * @throws IOException       when it is a directory, not a regular file, or cannot be read
     * @throws BadShardException when it is shorter than a header
     */
    static byte[] readHeader(Path file) throws IOException, BadShardException {
        if (Files.isDirectory(file)) {
            throw new IOException("is a directory");
        }
        if (!Files.isRegularFile(file)) {
            throw new IOException("not a regular file"); // a FIFO or device would block the open or read forever
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(ShardHeader.SIZE);
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // keep reading
            }
            if (b.hasRemaining()) {
                throw new BadShardException("truncated header (" + b.position() + " bytes)");
            }
            return b.array();
        }
    }
}
