package dev.sharray.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with left-aligned first column and right-aligned numbers-ish columns. */
public final class TextTable {
    private final String[] header;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /**
     * @param header column titles; a title starting with {@code >} is right-aligned (the {@code >} is dropped)
     */
    public TextTable(String... header) {
        this.header = new String[header.length];
        this.rightAligned = new boolean[header.length];
        for (int i = 0; i < header.length; i++) {
            rightAligned[i] = header[i].startsWith(">");
            this.header[i] = rightAligned[i] ? header[i].substring(1) : header[i];
        }
    }

    /**
     * @param cells one value per column
     * @return this table
     */
    public TextTable row(Object... cells) {
        String[] r = new String[header.length];
        for (int i = 0; i < header.length; i++) {
            r[i] = i < cells.length && cells[i] != null ? cells[i].toString() : "";
        }
        rows.add(r);
        return this;
    }

    /** @param out where to print the table */
    public void print(PrintStream out) {
        int[] w = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            w[i] = header[i].length();
            for (String[] r : rows) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        out.println(line(header, w));
        StringBuilder sep = new StringBuilder();
        for (int i = 0; i < w.length; i++) {
            sep.append(i == 0 ? "" : "  ").append("-".repeat(w[i]));
        }
        out.println(sep);
        for (String[] r : rows) {
            out.println(line(r, w));
        }
    }

    private String line(String[] cells, int[] w) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                sb.append("  ");
            }
            String pad = " ".repeat(w[i] - cells[i].length());
            sb.append(rightAligned[i] ? pad + cells[i] : (i == cells.length - 1 ? cells[i] : cells[i] + pad));
        }
        return sb.toString();
    }
}
