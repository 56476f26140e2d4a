package dev.sharray.cli;

import dev.sharray.ArrayInfo;
import dev.sharray.ReapReport;
import dev.sharray.SharedArrays;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sharray clean}: removes what crashed processes left behind. */
@Command(name = "clean", mixinStandardHelpOptions = true,
    description = {"Reap the folders of dead owner processes and the references dead processes still hold, and say "
        + "what was freed. Never touches a live process's folder or an array a live process holds."})
public final class CleanCommand implements Callable<Integer> {
    @Option(names = {"-n", "--dry-run"}, description = "Only list the folders of dead owners; delete nothing.")
    boolean dryRun;

    @Override
    public Integer call() {
        return dryRun ? dryRun() : clean();
    }

    private int dryRun() {
        Map<Path, long[]> folders = new TreeMap<>();
        for (ArrayInfo a : SharedArrays.list()) {
            if (!a.ownerAlive()) {
                long[] c = folders.computeIfAbsent(a.path().getParent(), p -> new long[2]);
                c[0]++;
                c[1] += a.bytes();
            }
        }
        if (folders.isEmpty()) {
            Ui.out().println("nothing to clean");
            return 0;
        }
        long total = 0;
        for (Map.Entry<Path, long[]> e : folders.entrySet()) {
            Ui.out().println("would remove " + e.getKey() + " (" + e.getValue()[0] + " array(s), "
                + Sizes.format(e.getValue()[1]) + ")");
            total += e.getValue()[1];
        }
        Ui.out().println("dry run: " + folders.size() + " folder(s) of dead owners, " + Sizes.format(total)
            + " would be freed");
        return 0;
    }

    private int clean() {
        ReapReport r = SharedArrays.reap();
        if (r.isEmpty()) {
            Ui.out().println("nothing to clean");
            return 0;
        }
        for (Path p : r.foldersRemoved()) {
            Ui.out().println("removed folder " + p);
        }
        List<Path> arrays = r.arraysDeleted();
        for (Path p : arrays) {
            Ui.out().println("deleted array " + p);
        }
        Ui.out().println("freed " + Sizes.format(r.bytesFreed()) + ": " + r.foldersRemoved().size() + " folder(s), "
            + arrays.size() + " array(s), " + r.referencesReclaimed() + " reference(s) of dead processes");
        return 0;
    }
}
