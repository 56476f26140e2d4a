package dev.sharray.cli;

import dev.sharray.ReapReport;
import dev.sharray.SharedArrays;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sharray clean}: removes what crashed processes left behind. */
@Command(name = "clean", mixinStandardHelpOptions = true,
    description = {"Reap the folders of dead owner processes and the references dead processes still hold, and say "
        + "what was freed. Never touches a live process's folder or an array a live process holds. Looks under "
        + "/dev/shm, java.io.tmpdir and SHARRAY_TEMP_FOLDER."})
public final class CleanCommand implements Callable<Integer> {
    @Option(names = {"-n", "--dry-run"}, description = "Only say what would be removed (folders, arrays, references of dead processes); delete nothing.")
    boolean dryRun;

    @Override
    public Integer call() {
        return dryRun ? dryRun() : clean();
    }

    /** What {@code clean} would do, from the reaper's own pass run without deleting (so the two always agree). */
    private int dryRun() {
        ReapReport r = SharedArrays.reapDryRun();
        if (r.isEmpty()) {
            Ui.out().println("nothing to clean");
            return 0;
        }
        for (Path p : r.foldersRemoved()) {
            Ui.out().println("would remove " + p + " (folder of a dead owner)");
        }
        for (Path p : r.arraysDeleted()) {
            Ui.out().println("would delete array " + p);
        }
        Ui.out().println("dry run: " + Sizes.format(r.bytesFreed()) + " would be freed: " + r.foldersRemoved().size()
            + " folder(s), " + r.arraysDeleted().size() + " array(s), " + r.referencesReclaimed()
            + " reference(s) of dead processes");
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
