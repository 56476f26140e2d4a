package dev.sharray.cli;

import dev.sharray.ArrayInfo;
import dev.sharray.ArrayListing;
import dev.sharray.SharedArrays;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

/** {@code sharray ls}: the shared arrays of this user on this host. */
@Command(name = "ls", mixinStandardHelpOptions = true,
    description = {"List live shared arrays of this user: path, dtype, shape, size, references per holding pid "
        + "(\"(dead)\" after a holder that no longer runs), "
        + "and whether the owning process is alive; then the array files that cannot be listed (unreadable, "
        + "damaged, left by a killed create, of another sharray build or another pid namespace) and the folders "
        + "that cannot be read, each with the reason. Looks under /dev/shm, java.io.tmpdir and SHARRAY_TEMP_FOLDER. "
        + "Reads only; nothing is modified."})
public final class LsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        ArrayListing listing = SharedArrays.listAll();
        List<ArrayInfo> arrays = listing.arrays();
        List<ArrayListing.Unlisted> unlisted = listing.unlisted();
        if (arrays.isEmpty() && unlisted.isEmpty()) {
            // a user whose program chose its root with -Dsharray.tempFolder sees why this one found nothing
            Ui.out().println((listing.roots().isEmpty() ? "no shared arrays: no temp root exists"
                : "no shared arrays under " + listing.roots().stream().map(Object::toString)
                .collect(Collectors.joining(", "))) + " (for a JVM started with -Dsharray.tempFolder=DIR, run this"
                + " with SHARRAY_TEMP_FOLDER=DIR)");
            return 0;
        }
        if (!arrays.isEmpty()) {
            TextTable t = new TextTable("path", "dtype", "shape", ">size", "holders (pid:refs)", ">owner", "owner alive");
            for (ArrayInfo a : arrays) {
                t.row(a.path(), a.dtype(), Arrays.toString(a.shape()), Sizes.format(a.bytes()), holders(a.holders(), a.deadHolders()),
                    a.ownerPid(), a.ownerAlive() ? "yes" : "no (run 'sharray clean')");
            }
            t.print(Ui.out());
        }
        long total = arrays.stream().mapToLong(ArrayInfo::bytes).sum();
        Ui.out().println(arrays.size() + " array(s), " + Sizes.format(total));
        if (!unlisted.isEmpty()) {
            // never hidden: a damaged or unreadable array still takes its space, and says what is wrong with it
            Ui.out().println(unlisted.size() + " array file(s) that cannot be listed:");
            for (ArrayListing.Unlisted u : unlisted) {
                Ui.out().println(u.path() + ": " + u.reason());
            }
        }
        return 0;
    }

    static String holders(Map<Long, Long> holders, Set<Long> dead) {
        if (holders.isEmpty()) {
            return "-";
        }
        return holders.entrySet().stream()
            .map(e -> e.getKey() + ":" + e.getValue() + (dead.contains(e.getKey()) ? " (dead)" : ""))
            .collect(Collectors.joining(" "));
    }
}
