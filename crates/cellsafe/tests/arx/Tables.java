/*
 * Tables: what the ARX drivers of cellsafe's parity tests share: a CSV loaded with ARX's
 * hierarchies (DATADIR/<data stem>_hierarchy_<QI>.csv), the other columns insensitive,
 * optionally with every quasi-identifier fixed at one level.
 */

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataDefinition;

final class Tables {

    private Tables() {}

    /** The table at `path`, its quasi-identifiers `qis`, each fixed at `levels[q]` if given. */
    static Data load(String path, char delimiter, List<String> qis, int[] levels) throws Exception {
        Data d = Data.create(path, StandardCharsets.UTF_8, delimiter);
        File file = new File(path);
        String stem = file.getName().replaceAll("\\.csv$", "");
        DataDefinition def = d.getDefinition();
        for (int c = 0; c < d.getHandle().getNumColumns(); c++) {
            String name = d.getHandle().getAttributeName(c);
            int q = qis.indexOf(name);
            if (q < 0) {
                def.setAttributeType(name, AttributeType.INSENSITIVE_ATTRIBUTE);
                continue;
            }
            File h = new File(file.getAbsoluteFile().getParentFile(), stem + "_hierarchy_" + name + ".csv");
            def.setAttributeType(name, Hierarchy.create(h.getPath(), StandardCharsets.UTF_8, ';'));
            if (levels != null) {
                def.setMinimumGeneralization(name, levels[q]);
                def.setMaximumGeneralization(name, levels[q]);
            }
        }
        return d;
    }

    /** `v` as a JSON array. */
    static String array(int[] v) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < v.length; i++) {
            if (i > 0) b.append(',');
            b.append(v[i]);
        }
        return b.append(']').toString();
    }
}
