package dev.sharray.bench.peers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** What the results were measured on: CPU, cores, SIMD flags, memory, JDK, OS. */
final class MachineInfo {
    private static final List<String> FLAGS = List.of("sse4_2", "avx", "avx2", "fma", "bmi2", "avx512f", "avx512bw",
        "avx512vl", "avx512vbmi", "gfni", "vpclmulqdq", "vaes");

    private MachineInfo() {
    }

    static List<String> describe(String pythonInfo) {
        List<String> lines = new ArrayList<>();
        String model = "?";
        Set<String> flags = new TreeSet<>();
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name") && model.equals("?")) {
                    model = l.substring(l.indexOf(':') + 1).trim();
                } else if (l.startsWith("flags") && flags.isEmpty()) {
                    flags.addAll(Arrays.asList(l.substring(l.indexOf(':') + 1).trim().split("\\s+")));
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        List<String> present = new ArrayList<>();
        for (String f : FLAGS) {
            if (flags.contains(f)) {
                present.add(f);
            }
        }
        lines.add("CPU: " + model + ", " + Runtime.getRuntime().availableProcessors() + " cores available to the JVM");
        lines.add("SIMD flags: " + (present.isEmpty() ? "?" : String.join(" ", present)));
        lines.add("Memory: " + memInfo("MemTotal") + " RAM; /dev/shm " + shmSize());
        lines.add("JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
            + " (" + System.getProperty("java.vm.vendor") + ")");
        lines.add("OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
            + System.getProperty("os.arch"));
        if (pythonInfo != null) {
            lines.add("Python peer: " + pythonInfo);
        }
        return lines;
    }

    private static String memInfo(String key) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith(key + ":")) {
                    long kb = Long.parseLong(l.replaceAll("\\D", ""));
                    return String.format("%.1f GiB", kb / 1048576.0);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // unknown
        }
        return "?";
    }

    private static String shmSize() {
        try {
            return String.format("%.1f GiB", Files.getFileStore(Path.of("/dev/shm")).getTotalSpace() / (double) (1L << 30));
        } catch (IOException e) {
            return "absent";
        }
    }
}
