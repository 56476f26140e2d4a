package dev.sharray;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a Python snippet with Debian's python3 and numpy (run-tests.sh installs python3-numpy). */
public final class Python {
    private static final String PYTHON = "/usr/bin/python3";

    private Python() {
    }

    /**
     * @param script Python source; {@code sys.argv[1:]} are {@code args}
     * @param args arguments
     * @return stdout, trimmed
     * @throws AssertionError when Python or numpy is missing or the script fails
     */
    public static String run(String script, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(PYTHON, "-c", script));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("python failed (needs " + PYTHON + " with numpy; ./run-tests.sh installs "
                + "python3-numpy):\n" + out);
        }
        return out.trim();
    }
}
