package org.elasticsearch.node;

import java.util.Collection;
import java.util.Map;
import java.util.Set;

import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.MockPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

/**
 * EXPERIMENT. Elasticsearch 8.19 has no public constructor taking classpath plugins; MockNode has one
 * but goes through ESTestCase, whose static init refuses to run as root. This class lives in the
 * server's package (a split package, fine on the plain classpath) to reach the package-private
 * NodeConstruction / NodeServiceProvider, and uses the test framework's MockPluginsService.
 */
public final class NeardupClasspathNode extends Node {
    public NeardupClasspathNode(Environment env, Collection<Class<? extends Plugin>> plugins) {
        super(NodeConstruction.prepareConstruction(
            env,
            PluginsLoader.createPluginsLoader(Set.of(), Set.of(), Map.of(), false),
            new NodeServiceProvider() {
                @Override
                PluginsService newPluginService(Environment e, PluginsLoader loader) {
                    return new MockPluginsService(e.settings(), e, plugins);
                }
            },
            true));
    }
}
