#!/bin/bash
# Readers trained from scratch on a lent GPU (datasets/configs/reader_members_gpu.yaml), in one device call.
# Prepared in session 28 (no machine was lent then); the set-up is session 27's detector run's
# (models/detector.md, "Stage 7"). Before the call, on the 2-core machine:
#   mkdir -p .gpu/wheels .gpu/fonts .gpu/real; echo /.gpu/ >> .git/info/exclude
#   pip download ultralytics==8.4.190 ultralytics-thop==2.2.3 --no-deps --python-version 3.12 --only-binary=:all: -d .gpu/wheels
#   python -c "import shutil; from datasets.synth.tiles import _installed_fonts as f; [shutil.copy2(p, '.gpu/fonts/' + n) for n, p in f().items()]"
#   cp -r ../shared/datasets/rummikub-real/train .gpu/real/
#   move the checkpoints this run does not need (models/*.pt but reader-masked.pt, detector-check.onnx) out of the
#   tree for the call: the tree travels with at most 64 MiB
# The call (carry .gpu; DEADLINE: seconds from the start to the end of training):
#   mkdir -p runs && setsid nohup bash training/lent_gpu_readers.sh > runs/gpu-job.log 2>&1 < /dev/null &
#   for i in $(seq 1 110); do [ -f runs/gpu-job/done ] && break; sleep 5; done; cp runs/gpu-job/*.pt runs/gpu-job.log $OUT/
# (a warm machine keeps runs/ between calls: a second call can wait for runs/gpu-job/done if the first returns early).
T0=$(date +%s); DEADLINE=${DEADLINE:-540}; MEMBERS=${MEMBERS:-3}
R=$PWD; J=$R/runs/gpu-job; mkdir -p $J
set -x
python3 -m pip install -q --no-deps --no-index .gpu/wheels/*.whl
mkdir -p .gpu/stub && printf 'def read_csv(*args, **kwargs):\n    raise ImportError("polars is not installed here")\n' > .gpu/stub/polars.py
cp .gpu/fonts/* /usr/share/fonts/truetype/
mkdir -p ../shared/datasets && ln -sfn $R/.gpu/real ../shared/datasets/rummikub-real
export PYTHONUNBUFFERED=1 PYTHONPATH=$R/.gpu/stub:$R YOLO_OFFLINE=1 YOLO_AUTOINSTALL=0
C=datasets/configs/reader_members_gpu.yaml
RUMMIKUB_THREADS=1 python3 -m training.train reader-editions --config $C --build-only --workers 16 > $J/editions.log 2>&1
echo "editions built at $(( $(date +%s) - T0 )) s"
RUMMIKUB_THREADS=16 python3 -m training.train reader-fonts --config $C --build-only > $J/fonts.log 2>&1
echo "fonts built at $(( $(date +%s) - T0 )) s"
H=$(python3 -c "print(round(max(60, $T0 + $DEADLINE - $(date +%s) - 20) / 3600, 4))")
for K in $(seq 1 $MEMBERS); do
  RUMMIKUB_THREADS=4 python3 -m training.train reader-fonts --config $C --no-build --from yolov8n-cls.yaml \
    --device 0 --train-seed $K --project $J/m$K --time $H > $J/m$K.log 2>&1 &
done
wait
for K in $(seq 1 $MEMBERS); do cp $J/m$K/reader-fonts/weights/best.pt $J/reader-scratch-$K.pt; done
echo "trained at $(( $(date +%s) - T0 )) s"
touch $J/done
