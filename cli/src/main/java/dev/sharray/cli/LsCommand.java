package dev.sharray.cli;

import dev.sharray.ArrayInfo;
import dev.sharray.SharedArrays;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

/** {@code sharray ls}: the shared arrays of this user on this host. */
@Command(name = "ls", mixinStandardHelpOptions = true,
    description = {"List live shared arrays of this user: path, dtype, shape, size, references per holding pid, "
        + "and whether the owning process is alive. Reads only; nothing is modified."})
public final class LsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        List<ArrayInfo> arrays = SharedArrays.list();
        if (arrays.isEmpty()) {
            Ui.out().println("no shared arrays");
            return 0;
        }
        TextTable t = new TextTable("path", "dtype", "shape", ">size", "holders (pid:refs)", ">owner", "owner alive");
        long total = 0;
        for (ArrayInfo a : arrays) {
            t.row(a.path(), a.dtype(), Arrays.toString(a.shape()), Sizes.format(a.bytes()), holders(a.holders()),
                a.ownerPid(), a.ownerAlive() ? "yes" : "no (run 'sharray clean')");
            total += a.bytes();
        }
        t.print(Ui.out());
        Ui.out().println(arrays.size() + " array(s), " + Sizes.format(total));
        return 0;
    }

    static String holders(Map<Long, Long> holders) {
        if (holders.isEmpty()) {
            return "-";
        }
        return holders.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).collect(Collectors.joining(" "));
    }
}
