# shellcheck shell=bash
# Sourced (bash) by the scripts that run Maven against a local repository of their own
# (-Dmaven.repo.local), so that what they install never mixes with ~/.m2: their settings.xml,
# which reads ~/.m2/repository as a file:// repository when it exists (no download on a warm
# machine; checksums not checked, as it is the machine's own cache), then Maven Central.
#
#   source scripts/lib/maven-seed.sh
#   maven_seed_settings FILE [--plugins-only]   # plugins only: artifacts come from Central alone
maven_seed_settings() {
  local file=${1:?maven_seed_settings FILE [--plugins-only]} plugins_only=${2:-} seed="$HOME/.m2/repository"
  local policy='<releases><enabled>true</enabled><checksumPolicy>ignore</checksumPolicy></releases>
        <snapshots><enabled>false</enabled></snapshots>'
  {
    echo '<settings>'
    if [[ -d "$seed" ]]; then
      echo '  <profiles><profile><id>seed</id>'
      if [[ $plugins_only != --plugins-only ]]; then
        echo "    <repositories><repository><id>seed</id><url>file://$seed</url>
        $policy</repository></repositories>"
      fi
      echo "    <pluginRepositories><pluginRepository><id>seed</id><url>file://$seed</url>
        $policy</pluginRepository></pluginRepositories>"
      echo '  </profile></profiles>'
      echo '  <activeProfiles><activeProfile>seed</activeProfile></activeProfiles>'
    fi
    echo '</settings>'
  } >"$file"
}
