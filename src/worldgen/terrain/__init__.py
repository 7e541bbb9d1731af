"""Height fields and what is done to them: maps, masks, biomes, tilemaps, shading."""
