package dev.sqlagent.catalogue;

import dev.sqlagent.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a process's {@link CatalogueHolder}: the first read at start (a role that cannot read the catalogue stops
 * the start here, before anything is served), then, clustered, follows the other nodes' news on
 * {@link Addresses#CATALOGUE_CHANGED} so a schema read again on one node is read again on this one. Deployed
 * first; the verticles after it are handed the same holder.
 */
public final class CatalogueVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(CatalogueVerticle.class);

  private final CatalogueHolder holder;

  public CatalogueVerticle(CatalogueHolder holder) {
    this.holder = holder;
  }

  @Override
  public Future<?> start() {
    return holder.current().compose(first -> vertx.eventBus().<JsonObject>consumer(Addresses.CATALOGUE_CHANGED,
        m -> holder.follow(CatalogueVersion.fromJson(m.body())).onFailure(e -> LOG.warn("catalogue: could not read again: {}", e.toString())))
        .completion());
  }

  @Override
  public Future<?> stop() {
    return holder.close();
  }
}
