# source after .gl/env.sh on the GPU machine: adds Mesa's lavapipe (the Debian packages in .lvp/)
# as a second Vulkan device beside the NVIDIA one, without replacing any library the machine has
mkdir -p /tmp/lvp/root /tmp/lvp/lib
for f in .lvp/*.deb; do dpkg -x "$f" /tmp/lvp/root; done
tar -xJf .lvp/lavapipe.tar.xz -C /tmp/lvp/root  # mesa-vulkan-drivers, lavapipe only
for so in /tmp/lvp/root/usr/lib/x86_64-linux-gnu/*.so.* /tmp/lvp/root/lib/x86_64-linux-gnu/*.so.*; do
  [ -e "$so" ] || continue
  name=$(basename "$so")
  ldconfig -p | grep -q "^[[:space:]]$name " || ln -sf "$so" /tmp/lvp/lib/
done
cat > /tmp/lvp/lvp_icd.json <<JSON
{"ICD": {"api_version": "1.1.230", "library_path": "/tmp/lvp/root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"}, "file_format_version": "1.0.0"}
JSON
nv=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/nvidia_icd.json}
export VK_DRIVER_FILES=$nv:/tmp/lvp/lvp_icd.json
export LD_LIBRARY_PATH=/tmp/lvp/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
